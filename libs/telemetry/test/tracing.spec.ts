import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { envelope, type StoredEvent } from '@thumbforge/contracts';
import { deferred, MemoryEventLog } from '@thumbforge/event-log/testing';
import { LocalObjectStore } from '@thumbforge/object-store';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  httpServerTelemetry,
  instrumentPorts,
  traceLogFields,
  tracedEventLog,
  tracedObjectStore,
  tracedProjectionStore,
  withSpan,
} from '../src/index.js';
import { startInMemoryTelemetry } from './support.js';

const telemetry = await startInMemoryTelemetry('test');
afterAll(() => telemetry.stop());
beforeEach(() => telemetry.reset());

/** Runs `work` inside a root span, as a request handler would be. */
function inRootSpan<T>(work: () => Promise<T>): Promise<T> {
  const span = trace.getTracer('test').startSpan('request');
  return context.with(trace.setSpan(context.active(), span), work).finally(() => span.end());
}

function byName(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found, `spans named ${name}`).toHaveLength(1);
  return found[0]!;
}

/** The server ends its span on the response's 'finish', which may come just after the client has read it. */
async function endedSpan(name: string): Promise<ReadableSpan> {
  for (let i = 0; i < 100; i++) {
    const found = (await telemetry.spans()).filter((span) => span.name === name);
    if (found.length > 0) return byName(found, name);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no span named ${name} ended`);
}

function isChild(child: ReadableSpan, parent: ReadableSpan): boolean {
  return (
    child.spanContext().traceId === parent.spanContext().traceId &&
    child.parentSpanContext?.spanId === parent.spanContext().spanId
  );
}

describe('tracedEventLog', () => {
  it('carries the trace across two hops of a real log: producer → consumer → producer → consumer', async () => {
    const log = tracedEventLog(new MemoryEventLog());
    const secondHandled = deferred<StoredEvent>();
    const first = await log.subscribe({
      group: 'billing',
      topics: ['thumbforge.billing'],
      from: 'committed',
      // The append made while handling is made in the consumer span's context.
      handle: async (event) => {
        await log.append('thumbforge.jobs', [
          envelope('render.succeeded', 'job_1', {}, { causationId: event.id }),
        ]);
      },
    });
    const second = await log.subscribe({
      group: 'webhook-intake',
      topics: ['thumbforge.jobs'],
      from: 'committed',
      handle: async (event) => secondHandled.resolve(event),
    });

    await inRootSpan(() =>
      log.append('thumbforge.billing', [envelope('billing.credits-reserved', 'acc_1', { amount: 1 })]),
    );
    const delivered = await secondHandled.promise;
    await first.close();
    await second.close();

    const spans = await telemetry.spans();
    const request = byName(spans, 'request');
    const sendBilling = byName(spans, 'send thumbforge.billing');
    const processBilling = byName(spans, 'process thumbforge.billing');
    const sendJobs = byName(spans, 'send thumbforge.jobs');
    const processJobs = byName(spans, 'process thumbforge.jobs');

    expect(isChild(sendBilling, request)).toBe(true);
    expect(isChild(processBilling, sendBilling)).toBe(true);
    expect(isChild(sendJobs, processBilling)).toBe(true);
    expect(isChild(processJobs, sendJobs)).toBe(true);
    expect(processJobs.links.map((link) => link.context.spanId)).toEqual([sendJobs.spanContext().spanId]);

    expect(sendBilling.kind).toBe(SpanKind.PRODUCER);
    expect(sendBilling.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'send',
      'messaging.destination.name': 'thumbforge.billing',
      'messaging.destination.partition.id': '0',
      'messaging.kafka.offset': 0,
      'thumbforge.event.type': 'billing.credits-reserved',
    });
    expect(processBilling.kind).toBe(SpanKind.CONSUMER);
    expect(processBilling.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'thumbforge.billing',
      'messaging.destination.partition.id': '0',
      'messaging.kafka.offset': 0,
      'messaging.consumer.group.name': 'billing',
    });

    // The context travels in the envelope itself, so it survives any log adapter.
    const { traceId, spanId } = sendJobs.spanContext();
    expect(delivered.headers?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });

  it('keeps the headers an envelope already has and marks a failing handler', async () => {
    const log = tracedEventLog(new MemoryEventLog());
    const failed = deferred<void>();
    let attempts = 0;
    const subscription = await log.subscribe({
      group: 'failing',
      topics: ['t'],
      from: 'committed',
      maxAttempts: 1,
      handle: async () => {
        attempts++;
        failed.resolve();
        throw new Error('handler broke');
      },
    });
    const [stored] = await inRootSpan(() =>
      log.append('t', [envelope('x.happened', 'a', {}, { headers: { 'x-origin': 'tool' } })]),
    );
    await failed.promise;
    await subscription.close();
    expect(stored!.headers).toMatchObject({ 'x-origin': 'tool', traceparent: expect.any(String) });
    expect(attempts).toBe(1);
    const processed = byName(await telemetry.spans(), 'process t');
    expect(processed.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'handler broke' });
  });

  it('starts a trace of its own for an event that carries no context', async () => {
    const raw = new MemoryEventLog();
    const log = tracedEventLog(raw);
    const handled = deferred<void>();
    // Written by something that is not traced.
    await raw.append('t', [envelope('x.happened', 'a', {})]);
    const subscription = await log.subscribe({
      group: 'g',
      topics: ['t'],
      from: 'beginning',
      handle: async () => handled.resolve(),
    });
    await handled.promise;
    await subscription.close();
    const processed = byName(await telemetry.spans(), 'process t');
    expect(processed.parentSpanContext).toBeUndefined();
    expect(processed.links).toEqual([]);
  });
});

describe('store decorators', () => {
  it('make MongoDB client spans inside a trace and none outside one', async () => {
    const store = tracedProjectionStore(new MemoryProjectionStore(), {
      collectionPrefix: 'billing_',
      database: 'thumbforge',
    });
    const accounts = store.collection<{ id: string; plan: string }>('accounts');
    await accounts.put({ id: 'acc_0', plan: 'pro' });
    expect(await telemetry.spans()).toEqual([]);

    await inRootSpan(async () => {
      await accounts.put({ id: 'acc_1', plan: 'pro' });
      expect(await accounts.find({ plan: 'pro' })).toHaveLength(2);
      await store.savePositions('billing', { 'thumbforge.billing:0': 3 });
    });
    const spans = await telemetry.spans();
    const request = byName(spans, 'request');
    const put = byName(spans, 'put billing_accounts');
    expect(isChild(put, request)).toBe(true);
    expect(put.kind).toBe(SpanKind.CLIENT);
    expect(put.attributes).toEqual({
      'db.system': 'mongodb',
      'db.operation.name': 'put',
      'db.collection.name': 'billing_accounts',
      'db.namespace': 'thumbforge',
    });
    expect(byName(spans, 'find billing_accounts').attributes['db.operation.name']).toBe('find');
    expect(byName(spans, 'savePositions projection_positions').attributes['db.collection.name']).toBe(
      'projection_positions',
    );
  });

  it('make S3 client spans named by the S3 operation, with the real bucket', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'telemetry-objects-'));
    try {
      const objects = tracedObjectStore(new LocalObjectStore({ dir, publicBaseUrl: 'http://cdn.test' }), {
        buckets: { public: 'tf-public', private: 'tf-private' },
      });
      await inRootSpan(async () => {
        await objects.put('private', 'results/job_1.webp', Buffer.from('image'), 'image/webp');
        expect((await objects.get('private', 'results/job_1.webp'))?.body.toString()).toBe('image');
      });
      expect(objects.publicUrl('a/b.png')).toBe('http://cdn.test/a/b.png');
      const put = byName(await telemetry.spans(), 'S3.PutObject');
      expect(put.kind).toBe(SpanKind.CLIENT);
      expect(put.attributes).toEqual({
        'rpc.system': 'aws-api',
        'rpc.service': 'S3',
        'rpc.method': 'PutObject',
        'aws.s3.bucket': 'tf-private',
        'aws.s3.key': 'results/job_1.webp',
      });
      expect(byName(await telemetry.spans(), 'S3.GetObject').attributes['rpc.method']).toBe('GetObject');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are applied to every port by instrumentPorts while telemetry is on', () => {
    const ports = {
      log: new MemoryEventLog(),
      projections: new MemoryProjectionStore(),
      objects: new LocalObjectStore({ dir: tmpdir(), publicBaseUrl: 'http://cdn.test' }),
      other: 'kept',
    };
    const instrumented = instrumentPorts(ports, {
      collectionPrefix: 'gateway_',
      mongoUri: 'mongodb://127.0.0.1:27017/thumbforge',
      buckets: { public: 'p', private: 'q' },
    });
    expect(instrumented.log).not.toBe(ports.log);
    expect(instrumented.projections).not.toBe(ports.projections);
    expect(instrumented.objects).not.toBe(ports.objects);
    expect(instrumented.other).toBe('kept');
  });
});

describe('HTTP server spans', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.use(httpServerTelemetry()!);
    app.use(express.json());
    app.get('/v1/jobs/:id', (_req, res) => {
      res.json({ traceId: trace.getActiveSpan()?.spanContext().traceId, log: traceLogFields() });
    });
    app.post('/v1/generate', (req, res) => {
      // The body was parsed from the request's stream events, still inside the request's span.
      res.status(500).json({ seen: req.body, traceId: trace.getActiveSpan()?.spanContext().traceId });
    });
    app.get('/health/ready', (_req, res) => {
      res.json({ traced: trace.getActiveSpan() !== undefined });
    });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('continue an incoming traceparent and name the span by route template', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${base}/v1/jobs/job_123?x=1`, {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    const body = (await res.json()) as { traceId: string; log: { trace_id: string; span_id: string } };
    expect(body.traceId).toBe(traceId);
    expect(body.log.trace_id).toBe(traceId);
    const span = await endedSpan('GET /v1/jobs/:id');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(body.log.span_id).toBe(span.spanContext().spanId);
    expect(span.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/v1/jobs/:id',
      'http.response.status_code': 200,
      'url.path': '/v1/jobs/job_123',
    });
  });

  it('keep the context through body parsing and mark a 5xx as an error', async () => {
    const res = await fetch(`${base}/v1/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x' }),
    });
    const body = (await res.json()) as { seen: unknown; traceId: string };
    expect(body.seen).toEqual({ title: 'x' });
    const span = await endedSpan('POST /v1/generate');
    expect(body.traceId).toBe(span.spanContext().traceId);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('leave health probes alone', async () => {
    const res = await fetch(`${base}/health/ready`);
    expect(await res.json()).toEqual({ traced: false });
    expect(await telemetry.spans()).toEqual([]);
  });
});

describe('withSpan', () => {
  it('makes a child span that records what the work reports', async () => {
    await inRootSpan(() =>
      withSpan('POST', { kind: 'client', attributes: { 'http.request.method': 'POST' } }, async (scope) => {
        scope.set('http.response.status_code', 503);
        scope.fail('receiver answered HTTP 503', '503');
      }),
    );
    const post = byName(await telemetry.spans(), 'POST');
    expect(isChild(post, byName(await telemetry.spans(), 'request'))).toBe(true);
    expect(post.kind).toBe(SpanKind.CLIENT);
    expect(post.attributes).toEqual({
      'http.request.method': 'POST',
      'http.response.status_code': 503,
      'error.type': '503',
    });
    expect(post.status).toEqual({ code: SpanStatusCode.ERROR, message: 'receiver answered HTTP 503' });
  });

  it('gives log lines no trace fields outside a span', () => {
    expect(traceLogFields()).toEqual({});
  });
});
