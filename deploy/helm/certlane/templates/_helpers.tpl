{{/*
The services this chart knows; each has an image certlane/<name> built from
docker/Dockerfile.<name>.
*/}}
{{- define "certlane.knownServices" -}}
api-gateway auth issuance deployment-dispatch revocation protocol-frontends notifier health-monitor
{{- end }}

{{- define "certlane.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Release-wide name prefix: the release name if it already contains the chart name,
otherwise <release>-<chart>.
*/}}
{{- define "certlane.fullname" -}}
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

{{- define "certlane.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Name of one component's resources. Argument: (dict "root" $ "name" "<component>").
*/}}
{{- define "certlane.componentName" -}}
{{- printf "%s-%s" (include "certlane.fullname" .root) .name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Selector labels. Argument: (dict "root" $ "name" "<component>").
*/}}
{{- define "certlane.selectorLabels" -}}
app.kubernetes.io/name: {{ include "certlane.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/*
Common labels. Argument: (dict "root" $ "name" "<component>").
*/}}
{{- define "certlane.labels" -}}
helm.sh/chart: {{ include "certlane.chart" .root }}
{{ include "certlane.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: certlane
{{- end }}

{{/*
Image reference of one service. Argument: (dict "root" $ "name" "<service>" "svc" <entry>).
*/}}
{{- define "certlane.image" -}}
{{- $global := .root.Values.image -}}
{{- $own := .svc.image | default dict -}}
{{- $repository := "" -}}
{{- if $own.repository -}}
{{- $repository = $own.repository -}}
{{- else if $global.registry -}}
{{- $repository = printf "%s/%s/%s" (trimSuffix "/" $global.registry) $global.repositoryPrefix .name -}}
{{- else -}}
{{- $repository = printf "%s/%s" $global.repositoryPrefix .name -}}
{{- end -}}
{{- $tag := $own.tag | default $global.tag | default .root.Chart.AppVersion -}}
{{- printf "%s:%s" $repository (toString $tag) -}}
{{- end }}

{{/*
Secret holding SERVICE_DATABASE_URL: postgres.existingSecret, or the chart's own when
postgres.url is set.
*/}}
{{- define "certlane.postgresSecretName" -}}
{{- if .Values.postgres.existingSecret -}}
{{- .Values.postgres.existingSecret -}}
{{- else -}}
{{- include "certlane.componentName" (dict "root" . "name" "postgres") -}}
{{- end -}}
{{- end }}

{{/*
Checks that span several values; renders nothing, fails templating on an error.
*/}}
{{- define "certlane.validate" -}}
{{- $known := splitList " " (include "certlane.knownServices" .) -}}
{{- range $name, $svc := .Values.services -}}
{{- if not (has $name $known) -}}
{{- fail (printf "services.%s: unknown service; known services: %s" $name (join ", " $known)) -}}
{{- end -}}
{{- if and (dig "enabled" false $svc) (dig "autoscaling" "enabled" false $svc) -}}
{{- if not (dig "resources" "requests" "cpu" "" $svc) -}}
{{- fail (printf "services.%s.autoscaling.enabled needs services.%s.resources.requests.cpu (the HPA scales on CPU utilization)" $name $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if not (has .Values.auth.type (list "api-key" "oidc" "none")) -}}
{{- fail (printf "auth.type must be one of api-key, oidc, none (got %q)" (toString .Values.auth.type)) -}}
{{- end -}}
{{- if and (eq .Values.auth.type "none") (not .Values.demoModeAck) -}}
{{- fail "auth.type none turns authentication off; the services accept it only with demoModeAck: true (SERVICE_DEMO_MODE_ACK), e.g. behind an authenticating gateway" -}}
{{- end -}}
{{- if and .Values.postgres.url .Values.postgres.existingSecret -}}
{{- fail "set only one of postgres.existingSecret and postgres.url" -}}
{{- end -}}
{{- if not (or .Values.postgres.url .Values.postgres.existingSecret) -}}
{{- fail "postgres.existingSecret (a Secret holding the postgres:// URL under postgres.existingSecretKey) or postgres.url is required" -}}
{{- end -}}
{{- end }}
