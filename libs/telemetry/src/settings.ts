export type Env = Record<string, string | undefined>;

/** Which signals a process exports. Both false: no SDK starts and nothing is wrapped. */
export interface TelemetrySignals {
  traces: boolean;
  metrics: boolean;
}

const OFF: TelemetrySignals = { traces: false, metrics: false };

function list(raw: string | undefined): string[] | undefined {
  const names = raw
    ?.split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  return names && names.length > 0 ? names : undefined;
}

function endpointSet(env: Env, signal: 'TRACES' | 'METRICS'): boolean {
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim(),
  );
}

/**
 * Reads the standard OTEL_* settings. The SDK's own default is an OTLP exporter to localhost, which
 * would make every process without a collector retry exports forever; here a signal is on only when
 * it is asked for: an exporter named in OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER (other than
 * `none`), or, with those unset, an OTLP endpoint. OTEL_SDK_DISABLED=true turns everything off;
 * OTEL_CONFIG_FILE (declarative configuration) turns both on and leaves the rest to the file.
 */
export function telemetrySignals(env: Env = process.env): TelemetrySignals {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return OFF;
  if (env.OTEL_CONFIG_FILE?.trim()) return { traces: true, metrics: true };
  const on = (signal: 'TRACES' | 'METRICS') => {
    const exporters = list(env[`OTEL_${signal}_EXPORTER`]);
    return exporters === undefined ? endpointSet(env, signal) : !exporters.includes('none');
  };
  return { traces: on('TRACES'), metrics: on('METRICS') };
}

/** `service.name` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES names the service. */
export function defaultServiceName(service: string, env: Env = process.env): string | undefined {
  if (env.OTEL_SERVICE_NAME?.trim()) return undefined;
  if (/(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '')) return undefined;
  return `thumbforge-${service}`;
}
