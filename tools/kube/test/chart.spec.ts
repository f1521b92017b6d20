import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';
import { Kafka, logLevel } from 'kafkajs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImage, REPO, startCluster, type RunningCluster } from '../src/index.js';
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

beforeAll(async () => {
  const image = await timed('image build', () => buildImage());
  hostBefore = hostState();
  cluster = await timed('cluster up (provisioning included)', () => startCluster());
  infra = await timed('Kafka (SASL_SSL), FerretDB, MinIO on the node host', () =>
    startInfrastructure({ host: cluster.nodeIp, kafkaSaslSsl: true }),
  );
  await timed('image load into containerd', () => cluster.loadImage(image));

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
      const poller = (async () => {
        while (polling) {
          try {
            const r = await api(`/v1/jobs/${jobId}`, { key: apiKey });
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
      // Old pods linger while they terminate; the rollout is over once only new ones remain.
      for (let i = 0; i < 120 && (await pods()).some((p) => podsBefore.includes(p)); i++) await delay(1000);
      polling = false;
      await poller;
      expect(failures).toEqual([]);
      expect(polls).toBeGreaterThan(20);
      const after = await pods();
      expect(after).toHaveLength(5);
      expect(after.filter((p) => podsBefore.includes(p))).toEqual([]);
    },
    20 * 60_000,
  );

  it(
    'rolls back to the first revision',
    async () => {
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
      await cluster.kubectl([
        '-n',
        NAMESPACE,
        'delete',
        'pod',
        old!,
        '--grace-period=0',
        '--force',
        '--wait=false',
      ]);
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

  it('leaves nothing of the release behind on helm uninstall', async () => {
    await timed('helm uninstall --wait', () =>
      cluster.helm(['uninstall', RELEASE, '-n', NAMESPACE, '--wait', '--timeout', '5m']),
    );
    const left = await cluster.kubectl([
      '-n',
      NAMESPACE,
      'get',
      'all,configmaps,secrets,serviceaccounts,poddisruptionbudgets,jobs,ingresses,horizontalpodautoscalers',
      '-l',
      INSTANCE,
      '-o',
      'name',
    ]);
    expect(left.trim()).toBe('');
    const pods = await cluster.kubectl(['-n', NAMESPACE, 'get', 'pods', '-o', 'name']);
    expect(pods.trim()).toBe('');
  });

  it('tears the cluster down leaving the host as it was', async () => {
    process.stderr.write(`memory before teardown (MiB): ${JSON.stringify(cluster.memoryMiB())}\n`);
    hooks.close();
    await infra.stop();
    await timed('cluster down', () => cluster.stop());
    expect(hostState()).toEqual(hostBefore);
  });
});
