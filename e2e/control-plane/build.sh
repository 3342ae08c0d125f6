#!/usr/bin/env bash
# Builds the real control plane the operator e2e tests run against: etcd (go.etcd.io/etcd/server/v3), kube-apiserver,
# kube-controller-manager and kubectl from k8s.io/kubernetes, helm from helm.sh/helm/v3, all at
# the versions go.mod pins. Skips when every binary is newer than go.mod, go.sum and cmd/.
# The Go build cache keeps a rebuild after a change short.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin"
bin=target/bin
binaries=(etcd kube-apiserver kube-controller-manager kubectl helm)

up_to_date() {
  for b in "${binaries[@]}"; do
    [ -x "$bin/$b" ] || return 1
    [ -n "$(find go.mod go.sum cmd build.sh -newer "$bin/$b" -print -quit)" ] && return 1
  done
  return 0
}

if up_to_date; then
  echo "control plane: binaries in $bin are up to date"
  exit 0
fi

mkdir -p "$bin"
start=$(date +%s)
# The versions the binaries report, as the projects' own builds stamp them: without them the API
# server says v0.0.0 and helm assumes Kubernetes v1.20, and the chart's kubeVersion refuses both.
kube=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
helm=$(go list -m -f '{{.Version}}' helm.sh/helm/v3)
minor=$(echo "$kube" | cut -d. -f2)
kube_version="-X k8s.io/component-base/version.gitVersion=$kube -X k8s.io/component-base/version.gitMajor=1"
kube_version+=" -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
helm_version="-X helm.sh/helm/v3/internal/version.version=$helm"
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  helm_version+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$minor"
done
# -s -w: no symbol tables; the binaries are for tests, and linking is a large share of the time.
go build -ldflags="-s -w $kube_version" -o "$bin/" ./cmd/etcd ./cmd/kube-apiserver ./cmd/kube-controller-manager ./cmd/kubectl
go build -ldflags="-s -w $helm_version" -o "$bin/helm" helm.sh/helm/v3/cmd/helm
echo "control plane: built ${binaries[*]} in $(( $(date +%s) - start ))s"
