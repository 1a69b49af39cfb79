{{/* The labels on every object, which also select the agent's pods (engine/agent/manifests.Labels). */}}
{{- define "tenon.labels" -}}
app.kubernetes.io/component: agent
app.kubernetes.io/name: tenon
{{- end }}

{{/* The agent image: the tag defaults to the chart's appVersion, the agent of this chart's release. */}}
{{- define "tenon.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The name of the ClusterRole and ClusterRoleBinding: they carry the namespace, so two installs do not collide. */}}
{{- define "tenon.clusterRoleName" -}}
tenon:{{ .Release.Namespace }}
{{- end }}

{{/* Checks the values the schema cannot, as tenon manifests and tenon_agent do. */}}
{{- define "tenon.validate" -}}
{{- if and .Values.settings.interruptionQueue (ne .Values.cloud "aws") }}
{{- fail "settings.interruptionQueue: only the aws cloud reads an interruption queue; remove it" }}
{{- end }}
{{- if and .Values.settings.kwokLaunchDelay (ne .Values.cloud "kwok") }}
{{- fail "settings.kwokLaunchDelay: only the kwok cloud simulates boot time; remove it" }}
{{- end }}
{{- with .Values.policyGit }}
{{- if and (not .url) (or .branch .path .interval .secret) }}
{{- fail "policyGit.url: required in pull mode, a repository URL such as https://github.com/acme/policy.git" }}
{{- end }}
{{- end }}
{{- end }}
