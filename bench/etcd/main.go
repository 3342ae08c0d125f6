// Command etcd is etcd's own server main, built from the Go module proxy at the version pinned in
// go.mod, so the benchmark can compare against the etcd release users run today (Debian ships 3.4).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
