// Command kube-apiserver is the Kubernetes API server of the pinned release, built here so the
// operator's end-to-end tests meet a real control plane without a cluster or containers.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
