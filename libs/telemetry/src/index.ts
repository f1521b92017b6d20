export * from './catalogue.js';
export * from './settings.js';
export { startTelemetry, shutdownTelemetry, telemetryActive, type TelemetryOptions } from './sdk.js';
export {
  countCredits,
  countGeneration,
  countWebhookAttempt,
  recordRenderDuration,
  type GenerationAttributes,
} from './instruments.js';
export { KAFKA_BATCH_CHANNEL, type KafkaBatchMessage } from './observers.js';
export { withSpan, type SpanScope, type WithSpanOptions } from './spans.js';
export { tracedEventLog, type TracedEventLogOptions } from './event-log.js';
export {
  databaseOf,
  tracedObjectStore,
  tracedProjectionStore,
  type TracedObjectStoreOptions,
  type TracedProjectionStoreOptions,
} from './stores.js';
export { httpServerTelemetry, type HttpMiddleware } from './http-server.js';
export { traceLogFields } from './logging.js';
export { instrumentPorts, type ClusterPortsDescription, type Ports } from './ports.js';
