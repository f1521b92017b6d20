import { context, trace } from '@opentelemetry/api';
import { MemoryEventLog } from '@thumbforge/event-log/testing';
import { LocalObjectStore } from '@thumbforge/object-store';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  defaultServiceName,
  httpServerTelemetry,
  instrumentPorts,
  startTelemetry,
  telemetryActive,
  telemetrySignals,
  traceLogFields,
  withSpan,
} from '../src/index.js';

describe('telemetry settings', () => {
  it.each([
    [{}, { traces: false, metrics: false }],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, { traces: true, metrics: true }],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/v1/traces' }, { traces: true, metrics: false }],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_METRICS_EXPORTER: 'none' },
      { traces: true, metrics: false },
    ],
    [{ OTEL_TRACES_EXPORTER: 'console' }, { traces: true, metrics: false }],
    [{ OTEL_METRICS_EXPORTER: 'prometheus' }, { traces: false, metrics: true }],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' },
      { traces: false, metrics: false },
    ],
    [{ OTEL_CONFIG_FILE: '/etc/otel.yaml' }, { traces: true, metrics: true }],
  ])('%j → %j', (env, signals) => {
    expect(telemetrySignals(env)).toEqual(signals);
  });

  it('names the service thumbforge-<service> unless OTEL_* names it', () => {
    expect(defaultServiceName('billing', {})).toBe('thumbforge-billing');
    expect(defaultServiceName('billing', { OTEL_SERVICE_NAME: 'ledger' })).toBeUndefined();
    expect(
      defaultServiceName('billing', { OTEL_RESOURCE_ATTRIBUTES: 'team=a,service.name=x' }),
    ).toBeUndefined();
    expect(defaultServiceName('billing', { OTEL_RESOURCE_ATTRIBUTES: 'service.namespace=x' })).toBe(
      'thumbforge-billing',
    );
  });
});

describe('telemetry off', () => {
  it('starts nothing when no exporter is asked for or the SDK is disabled', async () => {
    expect(await startTelemetry('gateway', { env: {} })).toBe(false);
    expect(
      await startTelemetry('gateway', {
        env: { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' },
      }),
    ).toBe(false);
    expect(telemetryActive()).toBe(false);
  });

  it('wraps nothing: the same ports, no middleware, no spans, no log fields', async () => {
    const ports = {
      log: new MemoryEventLog(),
      projections: new MemoryProjectionStore(),
      objects: new LocalObjectStore({ dir: tmpdir(), publicBaseUrl: 'http://cdn.test' }),
    };
    const same = instrumentPorts(ports, {
      collectionPrefix: 'gateway_',
      mongoUri: 'mongodb://127.0.0.1/thumbforge',
      buckets: { public: 'p', private: 'q' },
    });
    expect(same).toBe(ports);
    expect(httpServerTelemetry()).toBeUndefined();
    // No SDK: the API's no-op tracer and no context manager, so nothing is ever active.
    const span = trace.getTracer('test').startSpan('request');
    expect(span.isRecording()).toBe(false);
    context.with(trace.setSpan(context.active(), span), () => {
      expect(trace.getActiveSpan()).toBeUndefined();
      expect(traceLogFields()).toEqual({});
    });
    const result = await withSpan('work', {}, async (scope) => {
      scope.fail('ignored');
      return trace.getActiveSpan() ?? 'no span';
    });
    expect(result).toBe('no span');
  });
});
