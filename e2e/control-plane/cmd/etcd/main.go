// Command etcd is the etcd server of the release the API server's client comes with. Debian's
// etcd-server (3.4.23) lacks what the API server needs for watch-list streams (RequestWatchProgress),
// and the API server then refuses the streaming lists that client-go and Fabric8 open.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
