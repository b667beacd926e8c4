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
Secret holding SERVICE_NATS_URL: nats.existingSecret, or the chart's own when nats.url is set.
*/}}
{{- define "certlane.natsSecretName" -}}
{{- if .Values.nats.existingSecret -}}
{{- .Values.nats.existingSecret -}}
{{- else -}}
{{- include "certlane.componentName" (dict "root" . "name" "nats") -}}
{{- end -}}
{{- end }}

{{/*
The public origin: publicOrigin, else https://<ingress.host> when the chart's ingress has a
host, else empty.
*/}}
{{- define "certlane.publicOrigin" -}}
{{- if .Values.publicOrigin -}}
{{- .Values.publicOrigin | trimSuffix "/" -}}
{{- else if and .Values.ingress.enabled .Values.ingress.host -}}
{{- printf "https://%s" .Values.ingress.host -}}
{{- end -}}
{{- end }}

{{/*
One public base URL: (dict "root" $ "value" <explicit value> "name" <value name>). Fails when it
is empty (no explicit value, no origin) or not an absolute http(s) URL without credentials,
query or fragment.
*/}}
{{- define "certlane.publicUrl" -}}
{{- $url := .value | default (include "certlane.publicOrigin" .root) | trimSuffix "/" -}}
{{- if not $url -}}
{{- fail (printf "publicOrigin is required (or ingress.enabled with ingress.host, or %s): the public origin where relying parties and users reach Certlane, e.g. https://pki.example.com. Every certificate the local CA issues embeds <origin>/crl/... and <origin>/ocsp/... (SERVICE_REVOCATION_BASE_URL) for good: a wrong value means re-issuing those certificates" .name) -}}
{{- end -}}
{{- if not (regexMatch `^https?://[^/?#@*\s]+(/[^?#\s]*)?$` $url) -}}
{{- fail (printf "%s: %q is not an absolute http(s) URL without credentials, query or fragment, like https://pki.example.com" (empty .value | ternary "publicOrigin" .name) $url) -}}
{{- end -}}
{{- $url -}}
{{- end }}

{{- define "certlane.revocationBaseUrl" -}}
{{- include "certlane.publicUrl" (dict "root" . "value" .Values.revocationBaseUrl "name" "revocationBaseUrl") -}}
{{- end }}

{{- define "certlane.guiUrl" -}}
{{- include "certlane.publicUrl" (dict "root" . "value" .Values.guiUrl "name" "guiUrl") -}}
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
{{- if and .Values.nats.url .Values.nats.existingSecret -}}
{{- fail "set only one of nats.existingSecret and nats.url" -}}
{{- end -}}
{{- if not (or .Values.nats.url .Values.nats.existingSecret) -}}
{{- fail "nats.existingSecret (a Secret holding the nats:// or tls:// URL of a JetStream-enabled NATS server under nats.existingSecretKey) or nats.url is required" -}}
{{- end -}}
{{- $sleep := .Values.preStopSleepSeconds | default 0 | int -}}
{{- if lt $sleep 0 -}}
{{- fail "preStopSleepSeconds must be 0 (no preStop hook) or more" -}}
{{- end -}}
{{- if and (gt $sleep 0) (lt (.Values.terminationGracePeriodSeconds | int) (add $sleep 10 | int)) -}}
{{- fail (printf "terminationGracePeriodSeconds (%d) must be at least preStopSleepSeconds + 10 (%d): the grace period includes the preStop sleep, and requests in flight need time to finish after SIGTERM" (.Values.terminationGracePeriodSeconds | int) (add $sleep 10 | int)) -}}
{{- end -}}
{{- end }}
