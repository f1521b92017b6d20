import type { INestApplicationContext } from '@nestjs/common';
import {
  makeEvent,
  SIGNATURE_HEADER,
  TOPICS,
  type EventEnvelope,
  type StoredEvent,
} from '@thumbforge/contracts';
import { PUBLIC_TEST_KEY, ReadinessRegistry } from '@thumbforge/platform';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  issueApiKey,
  startWebhookDelivery,
  testConfig,
  verifySignature,
  webhookEvents,
  type Ports,
} from './support/harness.js';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { startReceiver, type Receiver, type Reply } from './support/receiver.js';
import { TempDataDir } from './support/temp-data-dir.js';

const KEY = 'tf_live_0123456789abcdefghijABCDEFGHIJkl';
const IMAGE = Buffer.from('RIFF....WEBPVP8 not really an image, but bytes all the same');
const RENDERED_AT = new Date('2026-04-27T14:30:00.734Z');

describe('webhook delivery', () => {
  let temp: TempDataDir;
  let ports: Ports;
  let apps: INestApplicationContext[];
  let receivers: Receiver[];

  beforeEach(async () => {
    temp = await TempDataDir.open();
    ports = {
      log: temp.log,
      store: new MemoryProjectionStore(),
      objects: temp.objects(),
      config: testConfig(),
    };
    apps = [];
    receivers = [];
  });

  afterEach(async () => {
    for (const app of apps) await app.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await temp.dispose();
  });

  function configure(env: Record<string, string>): void {
    ports.config = testConfig(env);
  }

  /** Stops the service and reopens the log from disk: what a restarted process sees. */
  async function restart(app: INestApplicationContext): Promise<void> {
    await stop(app);
    ports.log = await temp.reopen();
  }

  async function start(overrides: Partial<Ports> = {}): Promise<INestApplicationContext> {
    const app = await startWebhookDelivery({ ...ports, ...overrides });
    apps.push(app);
    return app;
  }

  async function stop(app: INestApplicationContext): Promise<void> {
    apps.splice(apps.indexOf(app), 1);
    await app.close();
  }

  async function receiver(...replies: Reply[]): Promise<Receiver> {
    const started = await startReceiver(replies);
    receivers.push(started);
    return started;
  }

  async function renderSucceeded(
    jobId: string,
    webhookUrl: string | null,
    accountId = 'acc_1',
  ): Promise<StoredEvent> {
    const resultKey = `results/${jobId}.webp`;
    await ports.objects.put('private', resultKey, IMAGE, 'image/webp');
    const event = makeEvent(
      'render.succeeded',
      jobId,
      {
        jobId,
        generationId: `gen_${jobId.slice(4)}`,
        accountId,
        format: 'youtube',
        outputFormat: 'webp',
        width: 1280,
        height: 720,
        bytes: IMAGE.length,
        resultKey,
        imageUrl: `http://cdn.test/users/${accountId}/generations/gen_${jobId.slice(4)}.webp`,
        webhookUrl,
      },
      { correlationId: jobId, occurredAt: RENDERED_AT },
    );
    return append(TOPICS.jobs, event);
  }

  async function renderFailed(jobId: string, webhookUrl: string): Promise<StoredEvent> {
    const event = makeEvent(
      'render.failed',
      jobId,
      { jobId, accountId: 'acc_1', error: 'Generation timed out', webhookUrl },
      { correlationId: jobId, occurredAt: RENDERED_AT },
    );
    return append(TOPICS.jobs, event);
  }

  async function append(topic: string, event: EventEnvelope): Promise<StoredEvent> {
    const [stored] = await ports.log.append(topic, [event]);
    return stored!;
  }

  async function settled(jobId: string): Promise<StoredEvent[]> {
    return vi.waitFor(
      async () => {
        const events = await webhookEvents(ports.log, jobId);
        const last = events.at(-1)?.type;
        if (last !== 'webhook.delivered' && last !== 'webhook.exhausted')
          throw new Error(`not settled: ${last}`);
        return events;
      },
      { timeout: 15_000, interval: 10 },
    );
  }

  async function attemptsRecorded(jobId: string, count: number): Promise<void> {
    await vi.waitFor(
      async () => {
        const failed = (await webhookEvents(ports.log, jobId)).filter(
          (e) => e.type === 'webhook.attempt-failed',
        );
        if (failed.length < count) throw new Error(`${failed.length} attempts recorded`);
      },
      { timeout: 15_000, interval: 5 },
    );
  }

  it('POSTs generation.completed with the documented body, headers and signature', async () => {
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver(200);
    const app = await start();
    const render = await renderSucceeded('job_A1', hook.url);

    const events = await settled('job_A1');
    expect(app.get(ReadinessRegistry).snapshot()).toEqual({
      ready: true,
      components: { 'webhook-delivery': { state: 'ready' } },
    });
    expect(hook.received).toHaveLength(1);
    const [{ headers, body }] = hook.received as [(typeof hook.received)[number]];
    expect(body).toBe(
      JSON.stringify({
        event: 'generation.completed',
        jobId: 'job_A1',
        data: {
          image: `data:image/webp;base64,${IMAGE.toString('base64')}`,
          format: 'youtube',
          outputFormat: 'webp',
          generationId: 'gen_A1',
          imageUrl: 'http://cdn.test/users/acc_1/generations/gen_A1.webp',
          dimensions: { width: 1280, height: 720 },
        },
        timestamp: '2026-04-27T14:30:00Z',
      }),
    );
    const parsed = JSON.parse(body);
    expect(Object.keys(parsed)).toEqual(['event', 'jobId', 'data', 'timestamp']);
    expect(Object.keys(parsed.data)).toEqual([
      'image',
      'format',
      'outputFormat',
      'generationId',
      'imageUrl',
      'dimensions',
    ]);

    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('Thumbforge-Webhook/1');
    expect(headers['x-thumbforge-event']).toBe('generation.completed');
    expect(headers['x-thumbforge-job-id']).toBe('job_A1');
    expect(headers['x-thumbforge-delivery-attempt']).toBe('1');
    const signature = headers[SIGNATURE_HEADER.toLowerCase()] as string;
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(verifySignature(body, signature, KEY)).toBe(true);
    expect(verifySignature(body, signature, 'tf_live_someoneElsesKey0000000000000')).toBe(false);

    expect(events.map((e) => e.type)).toEqual(['webhook.delivery-requested', 'webhook.delivered']);
    expect(events[0]).toMatchObject({
      id: 'evt_wh_req_job_A1',
      aggregateId: 'job_A1',
      correlationId: 'job_A1',
      causationId: render.id,
      payload: { jobId: 'job_A1', accountId: 'acc_1', url: hook.url, timestamp: '2026-04-27T14:30:00Z' },
    });
    expect(events[1]).toMatchObject({
      correlationId: 'job_A1',
      causationId: 'evt_wh_req_job_A1',
      payload: { jobId: 'job_A1', attempt: 1, status: 200 },
    });
  });

  it('POSTs generation.failed with exactly event, jobId, error and timestamp', async () => {
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver(204);
    await start();
    await renderFailed('job_F1', hook.url);

    await settled('job_F1');
    const [{ headers, body }] = hook.received as [(typeof hook.received)[number]];
    expect(body).toBe(
      JSON.stringify({
        event: 'generation.failed',
        jobId: 'job_F1',
        error: 'Generation timed out',
        timestamp: '2026-04-27T14:30:00Z',
      }),
    );
    expect(headers['x-thumbforge-event']).toBe('generation.failed');
    expect(verifySignature(body, headers['x-service-signature'] as string, KEY)).toBe(true);
  });

  it('retries after 500, 500 and stops at the 200: three identical attempts, delivered', async () => {
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver(500, 500, 200);
    await start();
    await renderSucceeded('job_R1', hook.url);

    const events = await settled('job_R1');
    expect(events.map((e) => e.type)).toEqual([
      'webhook.delivery-requested',
      'webhook.attempt-failed',
      'webhook.attempt-failed',
      'webhook.delivered',
    ]);
    expect(events[1]!.payload).toMatchObject({
      attempt: 1,
      status: 500,
      error: 'receiver answered HTTP 500',
    });
    expect(events[2]!.payload).toMatchObject({ attempt: 2, status: 500 });
    expect(events[3]!.payload).toEqual({ jobId: 'job_R1', attempt: 3, status: 200 });
    for (const failed of events.slice(1, 3)) {
      const payload = failed.payload as { nextAttemptAt: string };
      expect(Date.parse(payload.nextAttemptAt)).toBeGreaterThan(Date.parse(failed.occurredAt) - 1);
    }

    expect(hook.received).toHaveLength(3);
    expect(hook.received.map((r) => r.headers['x-thumbforge-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
    expect(new Set(hook.received.map((r) => r.headers['x-service-signature'])).size).toBe(1);
  });

  it('gives up after four failed attempts (one plus three retries), every body byte-identical', async () => {
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver(500);
    await start();
    await renderSucceeded('job_X1', hook.url);

    const events = await settled('job_X1');
    expect(events.map((e) => e.type)).toEqual([
      'webhook.delivery-requested',
      'webhook.attempt-failed',
      'webhook.attempt-failed',
      'webhook.attempt-failed',
      'webhook.attempt-failed',
      'webhook.exhausted',
    ]);
    const failures = events
      .slice(1, 5)
      .map((e) => e.payload as { attempt: number; nextAttemptAt: string | null });
    expect(failures.map((f) => f.attempt)).toEqual([1, 2, 3, 4]);
    expect(failures.map((f) => f.nextAttemptAt === null)).toEqual([false, false, false, true]);
    expect(events[5]!.payload).toEqual({
      jobId: 'job_X1',
      attempts: 4,
      lastError: 'receiver answered HTTP 500',
    });

    expect(hook.received).toHaveLength(4);
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
  });

  it('counts a receiver that never answers within the timeout as a failed attempt', async () => {
    configure({ WEBHOOK_TIMEOUT_MS: '100' });
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver('hang');
    await start();
    await renderFailed('job_T1', hook.url);

    const events = await settled('job_T1');
    expect(events.at(-1)!.payload).toEqual({
      jobId: 'job_T1',
      attempts: 4,
      lastError: 'no answer within 100 ms',
    });
    expect(events.filter((e) => e.type === 'webhook.attempt-failed')).toHaveLength(4);
    expect(hook.received).toHaveLength(4);
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
  });

  it('resumes after a restart: the remaining attempts happen and the total stays four', async () => {
    // A long first delay so the restart falls between the first and second attempts.
    configure({ WEBHOOK_RETRY_DELAYS_MS: '300,20,20' });
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver(500);
    const first = await start();
    await renderSucceeded('job_S1', hook.url);
    await attemptsRecorded('job_S1', 1);
    await restart(first);
    const madeBeforeRestart = hook.received.length;

    // A fresh in-memory projection store, as in embedded mode: everything is rebuilt from the log.
    await start({ store: new MemoryProjectionStore() });
    const events = await settled('job_S1');
    expect(events.filter((e) => e.type === 'webhook.attempt-failed')).toHaveLength(4);
    expect(events.at(-1)!.type).toBe('webhook.exhausted');
    expect(hook.received).toHaveLength(4);
    expect(hook.received.map((r) => r.headers['x-thumbforge-delivery-attempt'])).toEqual([
      '1',
      '2',
      '3',
      '4',
    ]);
    expect(madeBeforeRestart).toBeLessThan(4);
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
  });

  it('resumes after a restart over a persistent projection store and completes the delivery', async () => {
    configure({ WEBHOOK_RETRY_DELAYS_MS: '300,20,20' });
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver(500, 200);
    const first = await start();
    await renderSucceeded('job_S2', hook.url);
    await attemptsRecorded('job_S2', 1);
    await restart(first);

    await start();
    const events = await settled('job_S2');
    expect(events.at(-1)!.payload).toEqual({ jobId: 'job_S2', attempt: 2, status: 200 });
    expect(hook.received).toHaveLength(2);
    expect(hook.received[0]!.body).toBe(hook.received[1]!.body);
    const requests = events.filter((e) => e.type === 'webhook.delivery-requested');
    expect(requests).toHaveLength(1);
  });

  it('picks up a delivery left mid-way by a crashed process from the log alone', async () => {
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver(200);
    const render = await renderFailed('job_C1', hook.url);
    const request = makeEvent(
      'webhook.delivery-requested',
      'job_C1',
      {
        jobId: 'job_C1',
        accountId: 'acc_1',
        url: hook.url,
        outcome: { event: 'generation.failed', error: 'Generation timed out' },
        timestamp: '2026-04-27T14:30:00Z',
      },
      { id: 'evt_wh_req_job_C1', correlationId: 'job_C1', causationId: render.id },
    );
    const failed = makeEvent('webhook.attempt-failed', 'job_C1', {
      jobId: 'job_C1',
      attempt: 1,
      status: 503,
      error: 'receiver answered HTTP 503',
      nextAttemptAt: new Date(Date.now() - 60_000).toISOString(),
    });
    await ports.log.append(TOPICS.webhooks, [request, failed]);

    await start();
    const events = await settled('job_C1');
    expect(events.at(-1)!.payload).toEqual({ jobId: 'job_C1', attempt: 2, status: 200 });
    expect(hook.received.map((r) => r.headers['x-thumbforge-delivery-attempt'])).toEqual(['2']);
    expect(events.filter((e) => e.type === 'webhook.delivery-requested')).toHaveLength(1);
  });

  it('closes a delivery whose last failure was recorded just before a crash, without another request', async () => {
    const hook = await receiver(200);
    const request = makeEvent('webhook.delivery-requested', 'job_C2', {
      jobId: 'job_C2',
      accountId: null,
      url: hook.url,
      outcome: { event: 'generation.failed', error: 'Generation timed out' },
      timestamp: '2026-04-27T14:30:00Z',
    });
    const failures = [1, 2, 3, 4].map((attempt) =>
      makeEvent('webhook.attempt-failed', 'job_C2', {
        jobId: 'job_C2',
        attempt,
        status: 500,
        error: 'receiver answered HTTP 500',
        nextAttemptAt: attempt < 4 ? new Date().toISOString() : null,
      }),
    );
    await ports.log.append(TOPICS.webhooks, [request, ...failures]);

    await start();
    const events = await settled('job_C2');
    expect(events.at(-1)!.payload).toEqual({
      jobId: 'job_C2',
      attempts: 4,
      lastError: 'receiver answered HTTP 500',
    });
    expect(hook.received).toHaveLength(0);
  });

  it('refuses a loopback target without connecting when private targets are not allowed', async () => {
    configure({ WEBHOOK_ALLOW_PRIVATE: '0' });
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver(200);
    await start();
    await renderSucceeded('job_P1', hook.url);

    const events = await settled('job_P1');
    expect(events.at(-1)!.type).toBe('webhook.exhausted');
    const failure = events.find((e) => e.type === 'webhook.attempt-failed')!.payload as { error: string };
    expect(failure.error).toBe(
      'refused to connect to 127.0.0.1: loopback addresses are not allowed as webhook targets',
    );
    expect(hook.connections()).toBe(0);
    expect(hook.received).toHaveLength(0);
  });

  it('signs with the account’s current key after a rotation', async () => {
    const rotated = 'tf_live_ZYXWVUTSRQPONMLKJIHGFEDCBA987654';
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver(200);
    await start();

    await renderSucceeded('job_K1', hook.url);
    await settled('job_K1');
    const ciphertext = await issueApiKey(ports.log, 'acc_1', rotated);
    // The rotation reaches the signer through its projection; a job finishing at that very moment may race it.
    await vi.waitFor(async () => {
      const doc = await ports.store
        .collection<{ id: string; keyCiphertext: string }>('webhook_signing_keys')
        .get('acc_1');
      expect(doc?.keyCiphertext).toBe(ciphertext);
    });
    await renderSucceeded('job_K2', hook.url);
    await settled('job_K2');

    const [before, after] = hook.received as [(typeof hook.received)[number], (typeof hook.received)[number]];
    expect(verifySignature(before.body, before.headers['x-service-signature'] as string, KEY)).toBe(true);
    expect(verifySignature(after.body, after.headers['x-service-signature'] as string, rotated)).toBe(true);
    expect(verifySignature(after.body, after.headers['x-service-signature'] as string, KEY)).toBe(false);
  });

  it('signs deliveries requested for the public test key with that key', async () => {
    const hook = await receiver(200);
    await start();
    await ports.log.append(TOPICS.webhooks, [
      makeEvent('webhook.delivery-requested', 'job_Z1', {
        jobId: 'job_Z1',
        accountId: null,
        url: hook.url,
        outcome: { event: 'generation.failed', error: 'title is required' },
        timestamp: '2026-04-27T14:30:00Z',
      }),
    ]);

    await settled('job_Z1');
    const [{ headers, body }] = hook.received as [(typeof hook.received)[number]];
    expect(verifySignature(body, headers['x-service-signature'] as string, PUBLIC_TEST_KEY)).toBe(true);
  });

  it('requests one delivery per job however often its outcome arrives, and none without a webhookUrl', async () => {
    await issueApiKey(ports.log, 'acc_1', KEY);
    const hook = await receiver(200);
    await start();
    const render = await renderSucceeded('job_D1', hook.url);
    await ports.log.append(TOPICS.jobs, [render]);
    await renderSucceeded('job_N1', null);
    await renderSucceeded('job_D2', hook.url);

    await settled('job_D2');
    await settled('job_D1');
    expect(await webhookEvents(ports.log, 'job_N1')).toEqual([]);
    const requests = (await webhookEvents(ports.log, 'job_D1')).filter(
      (e) => e.type === 'webhook.delivery-requested',
    );
    expect(requests).toHaveLength(1);
    expect(hook.received.map((r) => r.headers['x-thumbforge-job-id']).sort()).toEqual(['job_D1', 'job_D2']);
  });
});
