import { isSpanContextValid, trace } from '@opentelemetry/api';

/** The active span's ids for a log line (a pino `mixin`); nothing outside a trace. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return isSpanContextValid(span.spanContext()) ? { trace_id: traceId, span_id: spanId } : {};
}
