{{/* The chart's name, or nameOverride. */}}
{{- define "queen-kv-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The full name of the release's resources (63 characters at most). */}}
{{- define "queen-kv-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "queen-kv-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The operator pod's selector. */}}
{{- define "queen-kv-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "queen-kv-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "queen-kv-operator.labels" -}}
helm.sh/chart: {{ include "queen-kv-operator.chart" . }}
{{ include "queen-kv-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: operator
app.kubernetes.io/part-of: queen-kv
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "queen-kv-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "queen-kv-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The operator image; its tag defaults to the appVersion, the release version the images are built with. */}}
{{- define "queen-kv-operator.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The node image NOTES.txt puts in its example: nodeImage, or queen-kv-node:<appVersion>. */}}
{{- define "queen-kv-operator.nodeImage" -}}
{{- default (printf "queen-kv-node:%s" .Chart.AppVersion) .Values.nodeImage }}
{{- end }}

{{/*
The labels every Queen KV node pod carries (operator/.../model/Labels.java: name queen-kv, managed-by
queen-kv-operator; instance is the cluster's name). They select the pods of every cluster.
*/}}
{{- define "queen-kv-operator.nodePodLabels" -}}
app.kubernetes.io/name: queen-kv
app.kubernetes.io/managed-by: queen-kv-operator
{{- end }}

{{/* The pods of every cluster's backup CronJob (spec.backup), which call the nodes' HTTP port. */}}
{{- define "queen-kv-operator.backupPodLabels" -}}
app.kubernetes.io/name: queen-kv-backup
app.kubernetes.io/managed-by: queen-kv-operator
{{- end }}

{{/* The namespaces the NetworkPolicies go in: networkPolicy.namespaces, else watchNamespaces. */}}
{{- define "queen-kv-operator.networkPolicyNamespaces" -}}
{{- join "," (default .Values.watchNamespaces .Values.networkPolicy.namespaces) }}
{{- end }}

{{/* WATCH_NAMESPACES: comma-separated; empty means every namespace. */}}
{{- define "queen-kv-operator.watchNamespaces" -}}
{{- join "," .Values.watchNamespaces }}
{{- end }}

{{/* Refuse combinations that cannot work. */}}
{{- define "queen-kv-operator.validate" -}}
{{- if and (not .Values.clusterScoped) (empty .Values.watchNamespaces) }}
{{- fail "clusterScoped=false needs watchNamespaces: a namespaced install grants a Role in each watched namespace, so it cannot watch every namespace" }}
{{- end }}
{{- range .Values.watchNamespaces }}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" .) }}
{{- fail (printf "watchNamespaces: %q is not a namespace name" .) }}
{{- end }}
{{- end }}
{{- if .Values.networkPolicy.enabled }}
{{- if and (empty .Values.networkPolicy.namespaces) (empty .Values.watchNamespaces) }}
{{- fail "networkPolicy.enabled needs networkPolicy.namespaces when watchNamespaces is empty: an operator watching every namespace leaves the chart no list of namespaces to put a NetworkPolicy in" }}
{{- end }}
{{- range .Values.networkPolicy.namespaces }}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" .) }}
{{- fail (printf "networkPolicy.namespaces: %q is not a namespace name" .) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The operator's permissions (least privilege), shared by the ClusterRole and the per-namespace Roles.
*/}}
{{- define "queen-kv-operator.rules" -}}
# Its own resource, the status it writes and the finalizer it may add.
- apiGroups: ["queenkv.io"]
  resources: ["queenkvclusters", "queenkvclusters/status", "queenkvclusters/finalizers"]
  verbs: ["get", "list", "watch", "patch", "update"]
# What it creates for each cluster (owned by the QueenKvCluster, garbage-collected with it), as JOSDK
# dependent resources: watched, so that a change to one reconciles its cluster.
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["services", "configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
# Pods: watched for readiness; a rolling restart evicts one at a time (the PodDisruptionBudget has
# its say) and deletes the pod of a single-member cluster (its budget allows no eviction).
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "delete"]
- apiGroups: [""]
  resources: ["pods/eviction"]
  verbs: ["create"]
# A removed member's volume claim is deleted so that a later scale-up never reuses stale data; the
# claim of spec.backup (<name>-backups) is created once and never deleted.
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "create", "delete"]
# spec.backup: the CronJob <name>-backup (owned by the QueenKvCluster), deleted when spec.backup goes.
- apiGroups: ["batch"]
  resources: ["cronjobs"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
# By name only, never list or watch (the operator cannot enumerate Secrets): it reads the admin token
# of spec.auth.adminTokenSecretRef and ca.crt of the TLS Secret, creates the cluster CA (<name>-ca) and
# writes the node certificate (<name>-tls) when it issues or renews it. Owner references delete them.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "create", "update", "patch"]
# tls.issuerRef: the cert-manager Certificate that writes <name>-tls, an owned resource (watched once a
# cluster asks for one, so cert-manager need not be installed otherwise).
- apiGroups: ["cert-manager.io"]
  resources: ["certificates"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
# Events about a QueenKvCluster.
- apiGroups: ["", "events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{/* The Lease of the leader election, in the release's namespace: JOSDK checks get, create and update at start-up; Fabric8's elector renews it with patch. */}}
{{- define "queen-kv-operator.leaseRules" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update", "patch"]
{{- end }}
