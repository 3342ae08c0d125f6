// Command kube-controller-manager runs the pinned release's controllers (StatefulSet, garbage
// collector, disruption, endpoints) against the API server the tests start.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	os.Exit(cli.Run(app.NewControllerManagerCommand()))
}
