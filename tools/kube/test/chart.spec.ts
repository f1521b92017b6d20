import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';
import { Kafka, logLevel } from 'kafkajs';
import sharp from 'sharp';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildImage,
  prometheusImage,
  PROMETHEUS_MANIFEST,
  reclaimLeftCluster,
  REPO,
  startCluster,
  type RunningCluster,
} from '../src/index.js';
import { hostState } from './host-state.js';

/** A first run builds Kubernetes, CoreDNS, helm, the base image and the image: most of an hour. */
const SETUP_TIMEOUT_MS = 60 * 60_000;
const NAMESPACE = 'thumbforge';
const RELEASE = 'thumbforge';
const ADMIN_TOKEN = 'local-node-admin-token-0123456789';
const INSTANCE = `app.kubernetes.io/instance=${RELEASE}`;

let cluster: RunningCluster;
let infra: RunningInfrastructure;
let gateway: string;
let apiKey: string;
let hooks: Server;
let hookUrl: string;
let prometheus: string;
const received: { body: string; signature: string | undefined }[] = [];
const timings: Record<string, number> = {};
const work = mkdtempSync(join(tmpdir(), 'thumbforge-chart-'));
let hostBefore: ReturnType<typeof hostState>;

async function timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    timings[step] = Math.round(performance.now() - started) / 1000;
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function api(path: string, init: RequestInit & { key?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('content-type', 'application/json');
  if (init.key) headers.set('x-api-key', init.key);
  return fetch(`${gateway}${path}`, { ...init, headers, signal: AbortSignal.timeout(60_000) });
}

/**
 * Waits until `url` answers 200. Ready pods are not yet a routed Service: kube-proxy writes the
 * Service's rules once it sees the endpoints, and until then a connection to the Service is refused.
 */
async function untilServed(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (response.ok) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = String((error as Error).cause ?? error);
    }
    await delay(250);
  }
  throw new Error(`${url} not served within ${timeoutMs} ms: ${last}`);
}

async function webhookFor(jobId: string, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const hook = received.find((h) => JSON.parse(h.body).jobId === jobId);
    if (hook) return hook;
    await delay(200);
  }
  throw new Error(`no webhook for ${jobId} within ${timeoutMs} ms`);
}

/** Names of the release's pods, of one component if given, running ones only if asked. */
async function pods(component?: string, runningOnly = false): Promise<string[]> {
  const selector = component ? `${INSTANCE},app.kubernetes.io/component=${component}` : INSTANCE;
  const out = await cluster.kubectl([
    '-n',
    NAMESPACE,
    'get',
    'pods',
    '-l',
    selector,
    ...(runningOnly ? ['--field-selector', 'status.phase=Running'] : []),
    '-o',
    'jsonpath={.items[*].metadata.name}',
  ]);
  return out.split(' ').filter(Boolean).sort();
}

/** Old pods linger while they terminate (and may still finish work); a rollout is over once they are gone. */
async function untilGone(old: string[]): Promise<void> {
  for (let i = 0; i < 120 && (await pods()).some((p) => old.includes(p)); i++) await delay(1000);
  expect((await pods()).filter((p) => old.includes(p))).toEqual([]);
}

function helmValues(): string {
  const kafka = infra.kafka.saslSsl!;
  const file = join(work, 'run-values.yaml');
  writeFileSync(
    file,
    JSON.stringify({
      kafka: { brokers: kafka.brokers },
      mongodb: { uri: `${infra.mongo.uri}thumbforge` },
      s3: { endpoint: infra.s3.endpoint },
      cdnUrl: `${infra.s3.endpoint}/thumbforge-public`,
      // Metrics straight to Prometheus' OTLP receiver (it takes no traces), often enough for the queries.
      settings: {
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://prometheus.monitoring:9090/api/v1/otlp/v1/metrics',
        OTEL_METRIC_EXPORT_INTERVAL: '5000',
      },
      secrets: {
        adminToken: ADMIN_TOKEN,
        keyEncryptionSecret: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
        s3AccessKeyId: infra.s3.accessKeyId,
        s3SecretAccessKey: infra.s3.secretAccessKey,
        kafkaSaslPassword: kafka.scram.password,
      },
    }),
  );
  return file;
}

async function decodeImage(dataUri: string) {
  const match = /^data:image\/(webp|png);base64,(.+)$/.exec(dataUri);
  expect(match).not.toBeNull();
  const bytes = Buffer.from(match![2]!, 'base64');
  return { bytes, meta: await sharp(bytes).metadata() };
}

/** Every query of the deploy/ dashboard's panels and alert rules, as Prometheus runs them. */
function observabilityQueries(): { source: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(`${REPO}deploy/grafana/thumbforge-dashboard.json`, 'utf8')) as {
    panels: { title: string; targets?: { expr?: string }[] }[];
  };
  const rules = parseYaml(readFileSync(`${REPO}deploy/prometheus/alerts.yaml`, 'utf8')) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  return [
    ...dashboard.panels.flatMap((panel) =>
      (panel.targets ?? [])
        .filter((target) => target.expr)
        // Grafana's own variable; a window wide enough for a few 5 s exports.
        .map((target) => ({
          source: `panel "${panel.title}"`,
          expr: target.expr!.replaceAll('$__rate_interval', '2m'),
        })),
    ),
    ...rules.groups.flatMap((group) =>
      group.rules.map((rule) => ({
        source: `alert ${rule.alert}`,
        // The threshold decides whether it fires; without it the expression is the measured value.
        expr: rule.expr.trim().replace(/\s*(>|<|==|>=|<=)\s*[\d.]+$/, ''),
      })),
    ),
  ];
}

async function promQuery(expr: string): Promise<unknown[]> {
  const response = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await response.json()) as { status: string; error?: string; data?: { result: unknown[] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data!.result;
}

beforeAll(async () => {
  const image = await timed('image build', () => buildImage());
  // A cluster killed before it could stop (an earlier run cut short) is gone before the host is read:
  // this run's own cluster must leave the host as the host was without one.
  await reclaimLeftCluster();
  hostBefore = hostState();
  cluster = await timed('cluster up (provisioning included)', () => startCluster());
  infra = await timed('Kafka (SASL_SSL), FerretDB, MinIO on the node host', () =>
    startInfrastructure({ host: cluster.nodeIp, kafkaSaslSsl: true }),
  );
  await timed('image load into containerd', () => cluster.loadImage(image));
  await timed('Prometheus (OTLP receiver) in the cluster', async () => {
    const promImage = await prometheusImage();
    await cluster.loadImage(promImage);
    const manifest = readFileSync(PROMETHEUS_MANIFEST, 'utf8').replaceAll('@PROMETHEUS_IMAGE@', promImage);
    await cluster.kubectl(['apply', '-f', '-'], manifest);
    await cluster.kubectl([
      '-n',
      'monitoring',
      'rollout',
      'status',
      'deployment/prometheus',
      '--timeout=300s',
    ]);
    const ip = await cluster.kubectl([
      '-n',
      'monitoring',
      'get',
      'service',
      'prometheus',
      '-o',
      'jsonpath={.spec.clusterIP}',
    ]);
    prometheus = `http://${ip}:9090`;
  });

  hooks = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ body, signature: request.headers['x-service-signature'] as string | undefined });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, cluster.nodeIp, resolve));
  hookUrl = `http://${cluster.nodeIp}:${(hooks.address() as { port: number }).port}/hooks`;

  await cluster.kubectl(['create', 'namespace', NAMESPACE]);
  await cluster.kubectl([
    '-n',
    NAMESPACE,
    'create',
    'secret',
    'generic',
    'thumbforge-kafka-tls',
    `--from-file=ca.crt=${infra.kafka.saslSsl!.caFile}`,
  ]);
  await timed('helm install --wait', () =>
    cluster.helm([
      'install',
      RELEASE,
      `${REPO}helm/thumbforge`,
      '-n',
      NAMESPACE,
      '-f',
      `${REPO}helm/thumbforge/ci/local-node-values.yaml`,
      '-f',
      helmValues(),
      '--wait',
      '--timeout',
      '15m',
    ]),
  );
  process.stderr.write(`memory after install (MiB): ${JSON.stringify(cluster.memoryMiB())}\n`);
  const ip = await cluster.kubectl([
    '-n',
    NAMESPACE,
    'get',
    'service',
    `${RELEASE}-gateway`,
    '-o',
    'jsonpath={.spec.clusterIP}',
  ]);
  gateway = `http://${ip}`;
  await timed('gateway Service routed', () => untilServed(`${gateway}/health/ready`));
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  process.stderr.write(`chart suite timings (s): ${JSON.stringify(timings)}\n`);
  hooks?.close();
  await infra?.stop();
  await cluster?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('helm/thumbforge on a real one-node cluster', () => {
  it('has every Deployment available and the topics the hook Job created', async () => {
    const deployments = JSON.parse(
      await cluster.kubectl(['-n', NAMESPACE, 'get', 'deployments', '-l', INSTANCE, '-o', 'json']),
    );
    const names = deployments.items.map((d: { metadata: { name: string } }) => d.metadata.name).sort();
    expect(names).toEqual(
      ['asset', 'billing', 'gateway', 'rendering', 'webhook-delivery'].map((s) => `${RELEASE}-${s}`),
    );
    for (const d of deployments.items) expect(d.status.readyReplicas).toBe(1);
    const pods = JSON.parse(
      await cluster.kubectl(['-n', NAMESPACE, 'get', 'pods', '-l', INSTANCE, '-o', 'json']),
    );
    for (const pod of pods.items) {
      expect(pod.spec.securityContext.runAsUser).toBe(10001);
      expect(pod.status.conditions.find((c: { type: string }) => c.type === 'Ready').status).toBe('True');
    }
    const admin = new Kafka({ brokers: infra.kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: await admin.listTopics() });
      const partitions = Object.fromEntries(metadata.topics.map((t) => [t.name, t.partitions.length]));
      expect(partitions).toMatchObject({
        'thumbforge.gateway': 3,
        'thumbforge.billing': 3,
        'thumbforge.assets': 3,
        'thumbforge.jobs': 3,
        'thumbforge.webhooks': 3,
        'thumbforge.dead-letter': 3,
        // The projections' write leases: one partition, one owner per group.
        'thumbforge.leases': 1,
      });
    } finally {
      await admin.disconnect();
    }
  });

  it('answers the first thumbnail through the gateway Service, also from the CDN', async () => {
    const account = await api('/admin/v1/accounts', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ plan: 'pro' }),
    });
    expect(account.status).toBe(201);
    apiKey = ((await account.json()) as { apiKey: string }).apiKey;
    const response = await timed('first sync thumbnail', () =>
      api('/v1/generate', {
        method: 'POST',
        key: apiKey,
        body: JSON.stringify({ title: 'Hello from Kubernetes', format: 'youtube' }),
      }),
    );
    expect(response.status).toBe(200);
    const result = (await response.json()) as { image: string; imageUrl: string; outputFormat: string };
    const { bytes, meta } = await decodeImage(result.image);
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1280, 720]);
    expect(result.imageUrl).toMatch(new RegExp(`^${infra.s3.endpoint}/thumbforge-public/users/acc_`));
    const cdn = await fetch(result.imageUrl);
    expect(cdn.status).toBe(200);
    expect(Buffer.from(await cdn.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('delivers an async result to a webhook, signed with the API key', async () => {
    const response = await api('/v1/generate', {
      method: 'POST',
      key: apiKey,
      body: JSON.stringify({
        title: 'Async on a node',
        format: 'instagram',
        outputFormat: 'png',
        webhookUrl: hookUrl,
      }),
    });
    expect(response.status).toBe(202);
    const { jobId, status } = (await response.json()) as { jobId: string; status: string };
    expect(status).toBe('processing');
    const hook = await webhookFor(jobId);
    expect(hook.signature).toBe(createHmac('sha256', apiKey).update(hook.body).digest('hex'));
    const payload = JSON.parse(hook.body) as { event: string; data: { image: string } };
    expect(payload.event).toBe('generation.completed');
    const { meta } = await decodeImage(payload.data.image);
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 1024]);
  });

  it(
    'exports metrics over OTLP that every dashboard panel and alert rule finds in Prometheus',
    async () => {
      // A refused request (4xx) and a webhook whose receiver is gone (retried, then exhausted).
      const bad = await api('/v1/generate', {
        method: 'POST',
        key: apiKey,
        body: JSON.stringify({ format: 'x' }),
      });
      expect(bad.status).toBe(400);
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, cluster.nodeIp, resolve));
      const deadUrl = `http://${cluster.nodeIp}:${(closed.address() as { port: number }).port}/gone`;
      await new Promise((resolve) => closed.close(resolve));
      const unreachable = await api('/v1/generate', {
        method: 'POST',
        key: apiKey,
        body: JSON.stringify({ title: 'Nobody listens', format: 'x', webhookUrl: deadUrl }),
      });
      expect(unreachable.status).toBe(202);

      // Ratios over failures this run cannot cause on purpose (5xx answers, failed renders): their
      // numerator is empty, so the test checks that the denominator, the measured traffic, has data.
      const failureOnly = (expr: string) =>
        /status_code=~"5\.\."|status="failed"/.test(expr) ? expr.slice(expr.lastIndexOf('/ sum') + 2) : expr;
      const queries = observabilityQueries().map((q) => ({ ...q, expr: failureOnly(q.expr) }));
      expect(queries.length).toBeGreaterThanOrEqual(21);
      let empty = queries;
      for (let attempt = 0; attempt < 90 && empty.length > 0; attempt++) {
        if (attempt > 0) await delay(2000);
        const results = await Promise.all(empty.map(async (q) => ({ q, rows: await promQuery(q.expr) })));
        empty = results.filter((r) => r.rows.length === 0).map((r) => r.q);
      }
      expect(empty.map((q) => `${q.source}: ${q.expr}`)).toEqual([]);
    },
    10 * 60_000,
  );

  it(
    'rolls every pod on helm upgrade with a changed setting, without a failed request',
    async () => {
      const podsBefore = await pods();
      const accepted = await api('/v1/generate', {
        method: 'POST',
        key: apiKey,
        body: JSON.stringify({ title: 'Polled', format: 'x', webhookUrl: hookUrl }),
      });
      const { jobId } = (await accepted.json()) as { jobId: string };
      let polling = true;
      const failures: string[] = [];
      let polls = 0;
      // A client on a kept-alive connection to a gateway that got SIGTERM is told `503 SHUTTING_DOWN`
      // with Retry-After and Connection: close (docs/deploy.md, "Upgrades"); it retries as the SDK
      // does, and that answer counts as a failure only if the retry fails too.
      let shuttingDown = 0;
      const poller = (async () => {
        while (polling) {
          try {
            let r = await api(`/v1/jobs/${jobId}`, { key: apiKey });
            if (
              r.status === 503 &&
              ((await r.clone().json()) as { code?: string }).code === 'SHUTTING_DOWN'
            ) {
              shuttingDown++;
              await delay(Number(r.headers.get('retry-after')) * 1000);
              r = await api(`/v1/jobs/${jobId}`, { key: apiKey });
            }
            polls++;
            if (r.status !== 200) failures.push(`HTTP ${r.status}: ${await r.text()}`);
          } catch (error) {
            failures.push(String(error));
          }
          await delay(100);
        }
      })();
      await timed('helm upgrade --wait (every pod rolled)', () =>
        cluster.helm([
          'upgrade',
          RELEASE,
          `${REPO}helm/thumbforge`,
          '-n',
          NAMESPACE,
          '--reuse-values',
          '--set',
          'logLevel=debug',
          '--wait',
          '--timeout',
          '15m',
        ]),
      );
      await untilGone(podsBefore);
      polling = false;
      await poller;
      expect(failures).toEqual([]);
      expect(polls).toBeGreaterThan(20);
      // At most one per old gateway pod: the one request in flight on its connection when it stopped.
      process.stderr.write(
        `upgrade: ${polls} polls, ${shuttingDown} answered 503 SHUTTING_DOWN and retried\n`,
      );
      expect(shuttingDown).toBeLessThanOrEqual(1);
      const after = await pods();
      expect(after).toHaveLength(5);
      expect(after.filter((p) => podsBefore.includes(p))).toEqual([]);
    },
    20 * 60_000,
  );

  it(
    'rolls back to the first revision',
    async () => {
      const podsBefore = await pods();
      await timed('helm rollback --wait', () =>
        cluster.helm(['rollback', RELEASE, '1', '-n', NAMESPACE, '--wait', '--timeout', '15m']),
      );
      const level = await cluster.kubectl([
        '-n',
        NAMESPACE,
        'get',
        'configmap',
        RELEASE,
        '-o',
        'jsonpath={.data.LOG_LEVEL}',
      ]);
      expect(level).toBe('info');
      const history = JSON.parse(await cluster.helm(['history', RELEASE, '-n', NAMESPACE, '-o', 'json']));
      expect(history.at(-1)).toMatchObject({ revision: 3, status: 'deployed', description: 'Rollback to 1' });
      await untilGone(podsBefore);
      expect(await pods('rendering')).toHaveLength(1);
      const response = await api('/v1/generate', {
        method: 'POST',
        key: apiKey,
        body: JSON.stringify({ title: 'After rollback', format: 'linkedin' }),
      });
      expect(response.status).toBe(200);
    },
    20 * 60_000,
  );

  it(
    'replaces a deleted rendering pod, which takes up the work queued meanwhile',
    async () => {
      const [old] = await pods('rendering', true);
      // Returns once the kubelet has stopped the pod's container. A forced delete would return at once
      // while the container kept running, free to take the job below before its replacement started.
      await timed('rendering pod deleted and stopped', () =>
        cluster.kubectl(['-n', NAMESPACE, 'delete', 'pod', old!, '--grace-period=1', '--timeout=5m']),
      );
      const response = await api('/v1/generate', {
        method: 'POST',
        key: apiKey,
        body: JSON.stringify({
          title: 'Queued while rendering was gone',
          format: 'blogpost',
          webhookUrl: hookUrl,
        }),
      });
      expect(response.status).toBe(202);
      const { jobId } = (await response.json()) as { jobId: string };
      const hook = await timed('job done after the pod was replaced', () => webhookFor(jobId, 600_000));
      expect(JSON.parse(hook.body).event).toBe('generation.completed');
      const now = await pods('rendering', true);
      expect(now).toHaveLength(1);
      expect(now[0]).not.toBe(old);
    },
    15 * 60_000,
  );

  it(
    'leaves nothing of the release behind on helm uninstall',
    async () => {
      await timed('helm uninstall --wait', () =>
        cluster.helm(['uninstall', RELEASE, '-n', NAMESPACE, '--wait', '--timeout', '5m']),
      );
      // `--wait` waits for the objects, not for their pods' graceful shutdown (up to the grace period);
      // every pod of the namespace counts, the release's label or not.
      const leftovers = async () =>
        (
          await cluster.kubectl([
            '-n',
            NAMESPACE,
            'get',
            'all,configmaps,secrets,serviceaccounts,poddisruptionbudgets,jobs,ingresses,horizontalpodautoscalers',
            '-l',
            INSTANCE,
            '-o',
            'name',
          ])
        ).trim() + (await cluster.kubectl(['-n', NAMESPACE, 'get', 'pods', '-o', 'name'])).trim();
      let left = await leftovers();
      for (let i = 0; i < 300 && left; i++) {
        await delay(1000);
        left = await leftovers();
      }
      expect(left).toBe('');
    },
    10 * 60_000,
  );

  it('tears the cluster down leaving the host as it was', async () => {
    process.stderr.write(`memory before teardown (MiB): ${JSON.stringify(cluster.memoryMiB())}\n`);
    hooks.close();
    await infra.stop();
    await timed('cluster down', () => cluster.stop());
    expect(hostState()).toEqual(hostBefore);
  });
});
