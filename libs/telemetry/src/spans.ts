import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type AttributeValue,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { INSTRUMENTATION_SCOPE } from './instruments.js';
import { telemetryActive } from './sdk.js';

export function tracer(): Tracer {
  return trace.getTracer(INSTRUMENTATION_SCOPE);
}

/** Marks a span failed with the error that ends it. */
export function recordFailure(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

/** What code inside `withSpan` may add to its span. */
export interface SpanScope {
  set(attributes: Attributes): void;
  set(key: string, value: AttributeValue): void;
  /** The operation failed without throwing (a webhook answered 500). */
  fail(message: string, type?: string): void;
}

const NO_SCOPE: SpanScope = { set: () => undefined, fail: () => undefined };

export interface WithSpanOptions {
  kind?: 'internal' | 'client';
  attributes?: Attributes;
}

/**
 * Runs `work` in a span that is a child of the active one; a throw marks it failed. While telemetry
 * is off the work runs as it is.
 */
export async function withSpan<T>(
  name: string,
  options: WithSpanOptions,
  work: (scope: SpanScope) => Promise<T>,
): Promise<T> {
  if (!telemetryActive()) return work(NO_SCOPE);
  const span = tracer().startSpan(name, {
    kind: options.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    ...(options.attributes ? { attributes: options.attributes } : {}),
  });
  const scope: SpanScope = {
    set: (keyOrAttributes: string | Attributes, value?: AttributeValue) => {
      if (typeof keyOrAttributes === 'string') {
        if (value !== undefined) span.setAttribute(keyOrAttributes, value);
      } else span.setAttributes(keyOrAttributes);
    },
    fail: (message, type) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      if (type) span.setAttribute('error.type', type);
    },
  };
  try {
    return await context.with(trace.setSpan(context.active(), span), () => work(scope));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * A client span for a call to a store, only as part of a trace: a call with no active span (start-up,
 * a timer) would otherwise start a trace of its own for every read.
 */
export async function clientCall<T>(
  name: string,
  attributes: Attributes,
  call: () => Promise<T>,
): Promise<T> {
  const parent = context.active();
  if (!trace.getSpan(parent)) return call();
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  try {
    // Not run inside the span: the drivers' pooled connections would keep its context for later calls.
    return await call();
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}
