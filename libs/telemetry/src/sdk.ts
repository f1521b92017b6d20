import { context, metrics, propagation, trace } from '@opentelemetry/api';
import type { IMetricReader } from '@opentelemetry/sdk-metrics';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { meter, resetInstruments } from './instruments.js';
import { startObservers } from './observers.js';
import { defaultServiceName, telemetrySignals, type Env, type TelemetrySignals } from './settings.js';

export interface TelemetryOptions {
  /** The settings to read (default: process.env, which the SDK itself reads too). */
  env?: Env;
  /** Exporters of the caller's own (tests) instead of the ones OTEL_* names; none given turns a signal off. */
  spanProcessors?: SpanProcessor[];
  metricReaders?: IMetricReader[];
}

interface Running {
  service: string;
  signals: TelemetrySignals;
  shutdown(): Promise<void>;
  stopObservers(): void;
}

let running: Running | undefined;

/** True once `startTelemetry` has started the SDK in this process. */
export function telemetryActive(): boolean {
  return running !== undefined;
}

/**
 * Starts OpenTelemetry for one service process, before anything else is built: the ports, the HTTP
 * middleware and the logger look at `telemetryActive()` when they are made. With no signal asked for
 * (see `telemetrySignals`) it starts nothing and answers false; the API's no-op providers then serve
 * every call, and the SDK is never loaded. `service.name` defaults to `thumbforge-<service>`.
 */
export async function startTelemetry(service: string, options: TelemetryOptions = {}): Promise<boolean> {
  if (running) throw new Error(`telemetry is already running for ${running.service}`);
  const env = options.env ?? process.env;
  const custom = options.spanProcessors !== undefined || options.metricReaders !== undefined;
  const signals = custom
    ? { traces: (options.spanProcessors?.length ?? 0) > 0, metrics: (options.metricReaders?.length ?? 0) > 0 }
    : telemetrySignals(env);
  if (!signals.traces && !signals.metrics) return false;

  // Imported only when a signal is on: the SDK brings every exporter it can build from OTEL_*
  // (gRPC, protobuf, Zipkin, Prometheus), about 35 MB of resident memory in a process.
  const { startNodeSdk } = await import('@opentelemetry/sdk-node');
  if (telemetryActive()) throw new Error(`telemetry was started twice at once (${service})`);
  const serviceName = defaultServiceName(service, env);
  const sdk = startNodeSdk({
    ...(serviceName ? { resourceAttributes: { 'service.name': serviceName } } : {}),
    // An empty list switches a signal off; undefined lets the SDK build it from OTEL_*.
    spanProcessors: signals.traces ? options.spanProcessors : [],
    metricReaders: signals.metrics ? options.metricReaders : [],
    // Logs stay on stdout as JSON (with trace ids); nothing writes to the OpenTelemetry logs API.
    logRecordProcessors: [],
  });
  resetInstruments();
  running = { service, signals, shutdown: () => sdk.shutdown(), stopObservers: startObservers(meter()) };
  return true;
}

/**
 * Flushes what is buffered and stops exporting, waiting at most `timeoutMs` for a collector that
 * does not answer; afterwards the API is back on its no-op providers.
 */
export async function shutdownTelemetry(timeoutMs = 5_000): Promise<void> {
  const current = running;
  if (!current) return;
  running = undefined;
  current.stopObservers();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([current.shutdown().catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
    resetInstruments();
  }
}
