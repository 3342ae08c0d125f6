// Command kubectl is the pinned release's kubectl; Debian's kubernetes-client is 1.20, too old
// for the API server it would talk to.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	// kubectl prints its own errors in its own format and exit codes; CheckErr does both.
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
}
