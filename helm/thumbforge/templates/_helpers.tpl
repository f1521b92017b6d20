{{/*
Names, labels and the settings every container gets. The five services share one image; each
Deployment passes its service name as the container argument (docker/entrypoint.sh).
*/}}

{{- define "thumbforge.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "thumbforge.fullname" -}}
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

{{- define "thumbforge.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The services in start order: process name (container argument) and values key. */}}
{{- define "thumbforge.services" -}}
- name: gateway
  key: gateway
- name: billing
  key: billing
- name: asset
  key: asset
- name: rendering
  key: rendering
- name: webhook-delivery
  key: webhookDelivery
{{- end }}

{{- define "thumbforge.labels" -}}
helm.sh/chart: {{ include "thumbforge.chart" . }}
{{ include "thumbforge.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: thumbforge
{{- end }}

{{- define "thumbforge.selectorLabels" -}}
app.kubernetes.io/name: {{ include "thumbforge.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of one component; call with (dict "root" $ "component" "gateway"). */}}
{{- define "thumbforge.componentLabels" -}}
{{ include "thumbforge.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "thumbforge.componentSelectorLabels" -}}
{{ include "thumbforge.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "thumbforge.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "thumbforge.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "thumbforge.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "thumbforge.secretName" -}}
{{- default (include "thumbforge.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/*
Non-secret settings (README "Configuration" and docs/cluster.md), as environment variable names and
values: the ConfigMap's data, and the hook Job's env (the hook runs before the ConfigMap exists).
*/}}
{{- define "thumbforge.config" -}}
THUMBFORGE_MODE: cluster
PORT: {{ .Values.port | quote }}
LOG_LEVEL: {{ .Values.logLevel | quote }}
CDN_URL: {{ .Values.cdnUrl | quote }}
KAFKA_BROKERS: {{ join "," .Values.kafka.brokers | quote }}
KAFKA_CLIENT_ID: {{ .Values.kafka.clientId | quote }}
KAFKA_PARTITIONS: {{ .Values.kafka.partitions | quote }}
KAFKA_REPLICATION_FACTOR: {{ .Values.kafka.replicationFactor | quote }}
KAFKA_SESSION_TIMEOUT_MS: {{ .Values.kafka.sessionTimeoutMs | quote }}
{{- if .Values.kafka.tls.enabled }}
KAFKA_TLS: "1"
{{- if .Values.kafka.tls.existingSecret }}
KAFKA_TLS_CA_FILE: "/etc/thumbforge/kafka-tls/ca.crt"
{{- if .Values.kafka.tls.clientCertificate }}
KAFKA_TLS_CERT_FILE: "/etc/thumbforge/kafka-tls/tls.crt"
KAFKA_TLS_KEY_FILE: "/etc/thumbforge/kafka-tls/tls.key"
{{- end }}
{{- end }}
{{- end }}
{{- if .Values.kafka.sasl.mechanism }}
KAFKA_SASL_MECHANISM: {{ .Values.kafka.sasl.mechanism | quote }}
KAFKA_SASL_USERNAME: {{ .Values.kafka.sasl.username | quote }}
{{- end }}
{{- with .Values.s3.endpoint }}
S3_ENDPOINT: {{ . | quote }}
{{- end }}
S3_REGION: {{ .Values.s3.region | quote }}
S3_PUBLIC_BUCKET: {{ .Values.s3.publicBucket | quote }}
S3_PRIVATE_BUCKET: {{ .Values.s3.privateBucket | quote }}
S3_PUBLIC_READ: {{ ternary "1" "0" .Values.s3.publicRead | quote }}
{{- with .Values.otel.endpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ . | quote }}
{{- end }}
{{- range $name, $value := .Values.settings }}
{{ $name }}: {{ $value | toString | quote }}
{{- end }}
{{- end }}

{{/* The generated Secret's data (base64); only when no existingSecret is named. */}}
{{- define "thumbforge.secretData" -}}
ADMIN_TOKEN: {{ .Values.secrets.adminToken | b64enc | quote }}
KEY_ENCRYPTION_SECRET: {{ .Values.secrets.keyEncryptionSecret | b64enc | quote }}
MONGODB_URI: {{ .Values.mongodb.uri | b64enc | quote }}
{{- with .Values.secrets.s3AccessKeyId }}
S3_ACCESS_KEY_ID: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.secrets.s3SecretAccessKey }}
S3_SECRET_ACCESS_KEY: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.secrets.imageModelApiKey }}
IMAGE_MODEL_API_KEY: {{ . | b64enc | quote }}
{{- end }}
{{- include "thumbforge.kafkaSecretData" . }}
{{- end }}

{{- define "thumbforge.kafkaSecretData" -}}
{{- with .Values.secrets.kafkaSaslPassword }}
KAFKA_SASL_PASSWORD: {{ . | b64enc | quote }}
{{- end }}
{{- end }}

{{/* What create-topics reads of the Secret: the cluster settings it validates, no more. */}}
{{- define "thumbforge.topicsSecretData" -}}
MONGODB_URI: {{ .Values.mongodb.uri | b64enc | quote }}
{{- with .Values.secrets.s3AccessKeyId }}
S3_ACCESS_KEY_ID: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.secrets.s3SecretAccessKey }}
S3_SECRET_ACCESS_KEY: {{ . | b64enc | quote }}
{{- end }}
{{- include "thumbforge.kafkaSecretData" . }}
{{- end }}

{{/* The Kafka TLS Secret (kafka.tls.existingSecret) as a volume, and where it is mounted. */}}
{{- define "thumbforge.kafkaTlsVolumeMount" -}}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.existingSecret }}
- name: kafka-tls
  mountPath: /etc/thumbforge/kafka-tls
  readOnly: true
{{- end }}
{{- end }}

{{- define "thumbforge.kafkaTlsVolume" -}}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.existingSecret }}
- name: kafka-tls
  secret:
    secretName: {{ .Values.kafka.tls.existingSecret }}
{{- end }}
{{- end }}

{{/* Extra environment of one container: the global extraEnv, then the component's own. */}}
{{- define "thumbforge.extraEnv" -}}
{{- $env := concat (.root.Values.extraEnv | default list) (.component.extraEnv | default list) }}
{{- with $env }}
{{- toYaml . }}
{{- end }}
{{- end }}

{{- define "thumbforge.podSecurityContext" -}}
{{- toYaml .Values.podSecurityContext }}
{{- end }}

{{- define "thumbforge.containerSecurityContext" -}}
{{- toYaml .Values.securityContext }}
{{- end }}
