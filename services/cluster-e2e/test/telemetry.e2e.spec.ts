import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { LocalCluster } from '@thumbforge/local-cluster';
import { METRIC_CATALOGUE, type MetricDefinition } from '@thumbforge/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, eventually, generate } from '@thumbforge/embedded/test/support/http.js';
import { startReceiver as startWebhookReceiver } from '@thumbforge/embedded/test/support/webhook-receiver.js';
import { startTestCluster } from './cluster.js';

// OTLP/JSON as the SDK's http/json exporters send it.
interface KeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  links?: Array<{ traceId: string; spanId: string }>;
}
interface OtlpDataPoints {
  dataPoints: Array<{ attributes?: KeyValue[] }>;
  isMonotonic?: boolean;
}
interface OtlpMetric {
  name: string;
  unit?: string;
  sum?: OtlpDataPoints;
  gauge?: OtlpDataPoints;
  histogram?: OtlpDataPoints;
}

/** A span with the service that sent it and its attributes as a plain object. */
interface ReceivedSpan extends OtlpSpan {
  service: string;
  attrs: Record<string, unknown>;
}
interface ReceivedMetric extends OtlpMetric {
  service: string;
}

const SPAN_KIND = { server: 2, client: 3, producer: 4, consumer: 5 } as const;

function plain(attributes: KeyValue[] = []): Record<string, unknown> {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.doubleValue ??
        value.boolValue,
    ]),
  );
}

/** An OTLP/HTTP receiver: what a collector would get from the services. */
async function startReceiver() {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      if (req.url === '/v1/traces') {
        for (const { resource, scopeSpans } of body.resourceSpans ?? []) {
          const service = String(plain(resource?.attributes)['service.name']);
          for (const scope of scopeSpans ?? []) {
            for (const span of scope.spans ?? [])
              spans.push({ ...span, service, attrs: plain(span.attributes) });
          }
        }
      } else if (req.url === '/v1/metrics') {
        for (const { resource, scopeMetrics } of body.resourceMetrics ?? []) {
          const service = String(plain(resource?.attributes)['service.name']);
          for (const scope of scopeMetrics ?? []) {
            for (const metric of scope.metrics ?? []) metrics.push({ ...metric, service });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    trace: (traceId: string) => spans.filter((span) => span.traceId === traceId),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A caller's own trace context: the gateway continues it, so the whole job lands in this trace. */
function callerContext() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

function services(spans: ReceivedSpan[]): Set<string> {
  return new Set(spans.map((span) => span.service));
}

/** Consumer spans whose parent is a producer span sent by another service: a Kafka hop. */
function kafkaHops(spans: ReceivedSpan[]): Array<{ from: string; to: string; topic: unknown }> {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  return spans.flatMap((span) => {
    const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
    if (span.kind !== SPAN_KIND.consumer || parent?.kind !== SPAN_KIND.producer) return [];
    if (parent.service === span.service) return [];
    expect(span.links?.map((link) => link.spanId)).toContain(parent.spanId);
    return [{ from: parent.service, to: span.service, topic: span.attrs['messaging.destination.name'] }];
  });
}

const DATA: Record<MetricDefinition['kind'], 'sum' | 'gauge' | 'histogram'> = {
  counter: 'sum',
  gauge: 'gauge',
  histogram: 'histogram',
};

describe('cluster mode: OpenTelemetry from request to webhook', () => {
  let cluster: LocalCluster;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let apiKey: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    hooks = await startWebhookReceiver();
    cluster = await startTestCluster({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      // The render's log line is checked for its trace id.
      LOG_LEVEL: 'info',
    });
    ({ apiKey } = await admin(cluster.gatewayUrl).createAccount('pro'));
  });
  afterAll(async () => {
    await cluster?.stop();
    await hooks?.close();
    await receiver?.close();
  });

  it('follows a sync request through every service in one trace', async () => {
    const caller = callerContext();
    const res = await generate(
      cluster.gatewayUrl,
      apiKey,
      { title: 'Traced sync', format: 'youtube' },
      { traceparent: caller.traceparent },
    );
    expect(res.status).toBe(200);

    const spans = await eventually(
      async () => {
        // Each service exports in its own batches, so wait for every span asserted below.
        const trace = receiver.trace(caller.traceId);
        const settled = trace.some(
          (s) =>
            s.service === 'thumbforge-billing' &&
            s.attrs['thumbforge.event.type'] === 'billing.credits-captured',
        );
        const served = trace.some((s) => s.kind === SPAN_KIND.server && s.service === 'thumbforge-gateway');
        const stored = trace.some(
          (s) => s.service === 'thumbforge-rendering' && s.attrs['rpc.method'] === 'PutObject',
        );
        const read = trace.some(
          (s) => s.service === 'thumbforge-gateway' && s.attrs['rpc.method'] === 'GetObject',
        );
        const hopped = new Set(kafkaHops(trace).map((hop) => hop.to)).size >= 3;
        return settled && served && stored && read && hopped && trace;
      },
      30_000,
      250,
    );

    const server = spans.find((s) => s.kind === SPAN_KIND.server && s.service === 'thumbforge-gateway');
    expect(server?.name).toBe('POST /v1/generate');
    expect(server?.parentSpanId).toBe(caller.spanId);
    expect(server?.attrs).toMatchObject({ 'http.route': '/v1/generate', 'http.response.status_code': 200 });

    const hops = kafkaHops(spans);
    expect(hops).not.toContainEqual({
      from: 'thumbforge-gateway',
      to: 'thumbforge-asset',
      topic: 'thumbforge.assets',
    });
    expect(hops).toContainEqual({
      from: 'thumbforge-gateway',
      to: 'thumbforge-billing',
      topic: 'thumbforge.billing',
    });
    expect(hops).toContainEqual({
      from: 'thumbforge-billing',
      to: 'thumbforge-rendering',
      topic: 'thumbforge.billing',
    });
    expect(hops).toContainEqual({
      from: 'thumbforge-rendering',
      to: 'thumbforge-gateway',
      topic: 'thumbforge.jobs',
    });

    const consumer = spans.find((s) => s.kind === SPAN_KIND.consumer && s.service === 'thumbforge-rendering');
    expect(consumer?.attrs).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.consumer.group.name': expect.any(String),
      'messaging.destination.partition.id': expect.stringMatching(/^\d+$/),
      'messaging.kafka.offset': expect.any(Number),
    });
    expect(spans.some((s) => s.attrs['db.system'] === 'mongodb' && s.kind === SPAN_KIND.client)).toBe(true);
    // The result is stored once, as the CDN copy, and the gateway answers with it from there.
    const calls = (service: string, method: string) =>
      spans.filter((s) => s.service === service && s.attrs['rpc.method'] === method);
    const puts = calls('thumbforge-rendering', 'PutObject');
    expect(puts.map((s) => s.attrs['aws.s3.bucket'])).toEqual(['thumbforge-public']);
    expect(puts[0]!.attrs['rpc.system']).toBe('aws-api');
    expect(calls('thumbforge-gateway', 'GetObject').map((s) => s.attrs['aws.s3.bucket'])).toEqual([
      'thumbforge-public',
    ]);

    // Logs written while handling the job carry its trace id.
    const rendered = cluster.processes.rendering.output
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; trace_id?: string })
      .find((line) => line.msg === 'render succeeded' && line.trace_id === caller.traceId);
    expect(rendered).toBeDefined();
  });

  it('follows an async request to its webhook attempt in one trace', async () => {
    const caller = callerContext();
    const res = await generate(
      cluster.gatewayUrl,
      apiKey,
      { title: 'Traced async', format: 'x', webhookUrl: hooks.url },
      { traceparent: caller.traceparent },
    );
    expect(res.status).toBe(202);
    const jobId: string = res.body.jobId;
    await eventually(
      async () => hooks.received.some((hook) => JSON.parse(hook.body).jobId === jobId),
      60_000,
      100,
    );

    const spans = await eventually(
      async () => {
        const trace = receiver.trace(caller.traceId);
        const attempt = trace.find(
          (s) => s.service === 'thumbforge-webhook-delivery' && s.attrs['http.request.method'] === 'POST',
        );
        const seen = services(trace);
        const all = ['gateway', 'billing', 'rendering', 'webhook-delivery'].every((s) =>
          seen.has(`thumbforge-${s}`),
        );
        const hopped = kafkaHops(trace).some((hop) => hop.to === 'thumbforge-webhook-delivery');
        return all && attempt && hopped && trace;
      },
      30_000,
      250,
    );
    const attempt = spans.find(
      (s) => s.service === 'thumbforge-webhook-delivery' && s.attrs['http.request.method'] === 'POST',
    );
    expect(attempt?.name).toBe('POST');
    expect(attempt?.kind).toBe(SPAN_KIND.client);
    expect(attempt?.attrs).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'url.full': hooks.url,
      'thumbforge.job.id': jobId,
      'thumbforge.webhook.attempt': 1,
    });
    expect(kafkaHops(spans)).toContainEqual({
      from: 'thumbforge-rendering',
      to: 'thumbforge-webhook-delivery',
      topic: 'thumbforge.jobs',
    });
  });

  it('exports every metric of the catalogue with its type, unit and attribute keys', async () => {
    const byName = await eventually(
      async () => {
        const found = new Map<string, ReceivedMetric[]>();
        for (const metric of receiver.metrics)
          found.set(metric.name, [...(found.get(metric.name) ?? []), metric]);
        const complete = METRIC_CATALOGUE.every((definition) =>
          found.get(definition.name)?.some((m) => (m[DATA[definition.kind]]?.dataPoints.length ?? 0) > 0),
        );
        // Both routes the gateway served are in its histogram. Each service exports on its own clock:
        // the gateway's first export after the generate requests can come after every other
        // service has exported its part of the catalogue.
        const routes = new Set(routesOf(found.get('http.server.request.duration') ?? []));
        return complete && routes.has('/v1/generate') && routes.has('/admin/v1/accounts') && found;
      },
      30_000,
      250,
    );
    for (const definition of METRIC_CATALOGUE) {
      const exported = byName.get(definition.name)!;
      for (const metric of exported) {
        expect(metric.unit ?? '', definition.name).toBe(definition.unit);
        expect(metric[DATA[definition.kind]], `${definition.name} as a ${definition.kind}`).toBeDefined();
        if (definition.kind === 'counter') expect(metric.sum?.isMonotonic, definition.name).toBe(true);
      }
      const keys = new Set(
        exported.flatMap((m) =>
          m[DATA[definition.kind]]!.dataPoints.flatMap((p) => (p.attributes ?? []).map((a) => a.key)),
        ),
      );
      expect([...keys].sort(), definition.name).toEqual([...definition.attributes].sort());
    }
    const senders = (name: string) => new Set(byName.get(name)!.map((m) => m.service));
    expect(senders('thumbforge.generations')).toEqual(new Set(['thumbforge-rendering']));
    expect(senders('thumbforge.credits.consumed')).toEqual(new Set(['thumbforge-billing']));
    expect(senders('thumbforge.webhook.attempts')).toEqual(new Set(['thumbforge-webhook-delivery']));
    expect(senders('http.server.request.duration')).toContain('thumbforge-gateway');
    expect(senders('thumbforge.consumer.lag')).toContain('thumbforge-billing');
    expect(senders('thumbforge.breaker.open')).toContain('thumbforge-rendering');
  });
});

function routesOf(durations: ReceivedMetric[]): unknown[] {
  return durations.flatMap((m) =>
    (m.histogram?.dataPoints ?? []).map((p) => plain(p.attributes)['http.route']),
  );
}
