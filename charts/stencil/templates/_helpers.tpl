{{/* The chart's name, overridable. */}}
{{- define "stencil.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The name of every object: the release name, with the chart's unless it already contains it. */}}
{{- define "stencil.fullname" -}}
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

{{- define "stencil.selectorLabels" -}}
app.kubernetes.io/name: {{ include "stencil.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "stencil.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "stencil.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: engine
{{- end }}

{{- define "stencil.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "stencil.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "stencil.leaseName" -}}
{{- default (printf "%s-leader" (include "stencil.fullname" .)) .Values.leaderElection.leaseName }}
{{- end }}

{{/* "true" when replicas must elect a leader: asked for, or more than one replica. */}}
{{- define "stencil.leaderElect" -}}
{{- if or .Values.leaderElection.enabled .Values.sharding.enabled (gt (int .Values.replicaCount) 1) }}true{{- end }}
{{- end }}

{{- define "stencil.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* Where the kinds' Leases are: kindLeases.namespace, else the first watched namespace, else kube-system. */}}
{{- define "stencil.kindLeaseNamespace" -}}
{{- .Values.kindLeases.namespace | default (first (include "stencil.watchNamespaces" . | fromJsonArray)) | default "kube-system" }}
{{- end }}

{{/* The namespaces the engine watches, watchNamespace and watchNamespaces together; empty: all. */}}
{{- define "stencil.watchNamespaces" -}}
{{- $all := .Values.watchNamespaces | default list }}
{{- if .Values.watchNamespace }}{{ $all = prepend $all .Values.watchNamespace }}{{ end }}
{{- toJson ($all | uniq) }}
{{- end }}

{{/*
The labels that aggregate a ClusterRole into one of this release's roles: (list $ "engine") or
(list $ "kind-leases").  They name the release and its namespace, so that no other release picks
the ClusterRole up: what `stencil bundle` writes (engine.core.offline.dropins).
*/}}
{{- define "stencil.aggregationLabels" -}}
{{- $root := index . 0 -}}
stencil.dev/aggregate-to-{{ index . 1 }}: {{ $root.Release.Name | quote }}
stencil.dev/release-namespace: {{ $root.Release.Namespace | quote }}
{{- end }}
