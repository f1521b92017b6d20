import {
  makeEvent,
  TOPICS,
  type EventEnvelope,
  type StoredEvent,
  type WebhookDeliveryRequestedV1,
  type WebhookOutcome,
} from '@thumbforge/contracts';
import { createLogger, encryptApiKey, PUBLIC_TEST_KEY, type Config } from '@thumbforge/platform';
import type { LocalObjectStore } from '@thumbforge/object-store';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TempDataDir } from '../../test/support/temp-data-dir.js';
import { DeliveryProjection } from '../deliveries/delivery-projection.js';
import { SigningKeys } from '../deliveries/signing-keys.js';
import { AttemptDeliveryUseCase } from './attempt-delivery.usecase.js';
import { AttemptFence } from './attempt-fence.js';
import { ResultImages } from './result-images.js';
import { signBody } from './webhook-body.js';
import type { SendResult, WebhookSender } from './webhook-sender.js';

const NOW = new Date('2026-05-01T08:00:00.000Z');
const SECRET = Buffer.alloc(32, 3);
const KEY = 'tf_live_abcdefghijklmnopqrstuvwxyz012345';

describe('AttemptDeliveryUseCase', () => {
  let temp: TempDataDir;
  let objects: LocalObjectStore;
  let deliveries: DeliveryProjection;
  let keys: SigningKeys;
  let post: ReturnType<
    typeof vi.fn<(url: string, body: string, headers: Record<string, string>) => Promise<SendResult>>
  >;
  let useCase: AttemptDeliveryUseCase;
  let fence: AttemptFence;

  beforeEach(async () => {
    temp = await TempDataDir.open();
    objects = temp.objects();
    const store = new MemoryProjectionStore();
    const config = { webhookRetryDelaysMs: [10_000, 60_000, 360_000], keyEncryptionSecret: SECRET } as Config;
    deliveries = new DeliveryProjection(store);
    keys = new SigningKeys(store, config);
    post = vi.fn();
    const sender = { post } as unknown as WebhookSender;
    const logger = createLogger({ logLevel: 'silent' });
    fence = new AttemptFence(temp.log, deliveries, logger);
    // The projection is folded by hand here: "reached" folds the event at once.
    fence.follow({ reached: (event) => deliveries.apply(event as StoredEvent) });
    fence.assign([{ topic: TOPICS.webhooks, partition: 0 }]);
    useCase = new AttemptDeliveryUseCase(
      temp.log,
      config,
      { now: () => NOW },
      logger,
      deliveries,
      keys,
      sender,
      fence,
      new ResultImages(objects),
    );
    await project(
      makeEvent('gateway.api-key-issued', 'acc_1', {
        accountId: 'acc_1',
        keyHash: 'hash',
        keyCiphertext: encryptApiKey(KEY, SECRET),
        keyHint: '2345',
      }),
      TOPICS.gateway,
    );
  });

  afterEach(() => {
    fence.close();
    return temp.dispose();
  });

  async function project(event: EventEnvelope, topic: string = TOPICS.webhooks) {
    const [stored] = await temp.log.append(topic, [event]);
    await (topic === TOPICS.gateway ? keys.apply(stored!) : deliveries.apply(stored!));
    return stored!;
  }

  async function requestDelivery(payload: Partial<WebhookDeliveryRequestedV1> = {}): Promise<StoredEvent> {
    return project(
      makeEvent(
        'webhook.delivery-requested',
        'job_1',
        {
          jobId: 'job_1',
          accountId: 'acc_1',
          url: 'https://hooks.example.com/t',
          outcome: { event: 'generation.failed', error: 'Generation timed out' },
          timestamp: '2026-04-27T14:30:00Z',
          ...payload,
        },
        { id: 'evt_wh_req_job_1', correlationId: 'job_1' },
      ),
    );
  }

  /** The attempts' facts: neither the request nor owner markers. */
  /** A completed outcome of a youtube WebP, its result where `where` says. */
  function completed(
    where: Pick<
      Extract<WebhookOutcome, { event: 'generation.completed' }>,
      'resultKey' | 'resultBucket' | 'imageUrl'
    >,
  ): WebhookOutcome {
    return {
      event: 'generation.completed',
      generationId: 'gen_1',
      format: 'youtube',
      outputFormat: 'webp',
      width: 1280,
      height: 720,
      ...where,
    };
  }

  async function recorded(): Promise<StoredEvent[]> {
    const events = await temp.events(TOPICS.webhooks);
    return events.filter((e) => e.type !== 'webhook.delivery-requested' && e.type !== 'log.owner-fenced');
  }

  it('records a delivery on a 2xx answer', async () => {
    await requestDelivery();
    post.mockResolvedValue({ ok: true, status: 202 });

    expect(await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 1 })).toEqual({
      kind: 'delivered',
    });
    const [delivered] = await recorded();
    expect(delivered).toMatchObject({
      type: 'webhook.delivered',
      correlationId: 'job_1',
      causationId: 'evt_wh_req_job_1',
      occurredAt: NOW.toISOString(),
      payload: { jobId: 'job_1', attempt: 1, status: 202 },
    });
  });

  it('signs the exact body bytes with the account key', async () => {
    await requestDelivery();
    post.mockResolvedValue({ ok: true, status: 200 });
    await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 1 });

    const [url, body, headers] = post.mock.calls[0]!;
    expect(url).toBe('https://hooks.example.com/t');
    expect(headers['X-Service-Signature']).toBe(signBody(body, KEY));
    expect(headers['X-Thumbforge-Delivery-Attempt']).toBe('1');
  });

  it('signs with the public test key when the delivery has no account', async () => {
    await requestDelivery({ accountId: null });
    post.mockResolvedValue({ ok: true, status: 200 });
    await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 1 });

    const [, body, headers] = post.mock.calls[0]!;
    expect(headers['X-Service-Signature']).toBe(signBody(body, PUBLIC_TEST_KEY));
  });

  it('schedules the next attempt after the configured delay of this one', async () => {
    await requestDelivery();
    post.mockResolvedValue({ ok: false, status: 500, error: 'receiver answered HTTP 500' });

    const result = await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 2 });
    const due = new Date(NOW.getTime() + 60_000);
    expect(result).toEqual({ kind: 'retry', attempt: 3, at: due });
    const [failed] = await recorded();
    expect(failed!.payload).toEqual({
      jobId: 'job_1',
      attempt: 2,
      status: 500,
      error: 'receiver answered HTTP 500',
      nextAttemptAt: due.toISOString(),
    });
  });

  it('records the fourth failure and the exhaustion together', async () => {
    await requestDelivery();
    post.mockResolvedValue({ ok: false, status: null, error: 'no answer within 10000 ms' });

    expect(await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 4 })).toEqual({
      kind: 'exhausted',
    });
    const events = await recorded();
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      [
        'webhook.attempt-failed',
        { jobId: 'job_1', attempt: 4, status: null, error: 'no answer within 10000 ms', nextAttemptAt: null },
      ],
      ['webhook.exhausted', { jobId: 'job_1', attempts: 4, lastError: 'no answer within 10000 ms' }],
    ]);
  });

  it('closes without a request a delivery whose fourth failure is recorded but not its exhaustion', async () => {
    await requestDelivery();
    await project(
      makeEvent('webhook.attempt-failed', 'job_1', {
        jobId: 'job_1',
        attempt: 4,
        status: 500,
        error: 'receiver answered HTTP 500',
        nextAttemptAt: null,
      }),
    );

    expect(await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 5 })).toEqual({
      kind: 'exhausted',
    });
    expect(post).not.toHaveBeenCalled();
    expect((await recorded()).at(-1)!.payload).toEqual({
      jobId: 'job_1',
      attempts: 4,
      lastError: 'receiver answered HTTP 500',
    });
  });

  it("answers an attempt already made with the delivery's next one, and skips finished deliveries and unknown jobs", async () => {
    await requestDelivery();
    const retryAt = new Date(NOW.getTime() + 10_000);
    await project(
      makeEvent('webhook.attempt-failed', 'job_1', {
        jobId: 'job_1',
        attempt: 1,
        status: 500,
        error: 'receiver answered HTTP 500',
        nextAttemptAt: retryAt.toISOString(),
      }),
    );
    // Scheduled from a view that predates the failure: the retry it recorded is what comes next.
    expect(await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 1 })).toEqual({
      kind: 'retry',
      attempt: 2,
      at: retryAt,
    });
    expect(await useCase.execute({ jobId: 'job_unknown', partition: 0, attempt: 1 })).toEqual({
      kind: 'skipped',
    });
    await project(makeEvent('webhook.delivered', 'job_1', { jobId: 'job_1', attempt: 2, status: 200 }));
    expect(await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 3 })).toEqual({ kind: 'skipped' });
    expect(post).not.toHaveBeenCalled();
    expect(await recorded()).toHaveLength(2);
  });

  it('fails the attempt without a request when the account has no known key', async () => {
    await requestDelivery({ accountId: 'acc_unknown' });
    expect(await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 1 })).toMatchObject({
      kind: 'retry',
    });
    expect(post).not.toHaveBeenCalled();
    expect((await recorded())[0]!.payload).toMatchObject({ error: 'no API key is known for the account' });
  });

  it('fails the attempt without a request when the image is gone', async () => {
    await requestDelivery({ outcome: completed({ resultKey: 'results/job_1.webp', imageUrl: null }) });
    expect(await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 1 })).toMatchObject({
      kind: 'retry',
    });
    expect(post).not.toHaveBeenCalled();
    expect((await recorded())[0]!.payload).toMatchObject({
      error: 'the generated image is no longer available',
    });

    await objects.put('private', 'results/job_1.webp', Buffer.from('img'), 'image/webp');
    post.mockResolvedValue({ ok: true, status: 200 });
    expect(await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 2 })).toEqual({
      kind: 'delivered',
    });
    expect(JSON.parse(post.mock.calls[0]![1]).data.image).toBe(
      `data:image/webp;base64,${Buffer.from('img').toString('base64')}`,
    );
  });

  it('sends the image from the bucket the render kept it in', async () => {
    const publicKey = 'users/acc_1/generations/gen_1.webp';
    await requestDelivery({
      outcome: completed({
        resultKey: publicKey,
        resultBucket: 'public',
        imageUrl: `http://cdn.test/${publicKey}`,
      }),
    });
    // The same key in the private bucket is not the result.
    await objects.put('private', publicKey, Buffer.from('not it'), 'image/webp');
    await objects.put('public', publicKey, Buffer.from('cdn copy'), 'image/webp');
    post.mockResolvedValue({ ok: true, status: 200 });
    expect(await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 1 })).toEqual({
      kind: 'delivered',
    });
    expect(JSON.parse(post.mock.calls[0]![1]).data.image).toBe(
      `data:image/webp;base64,${Buffer.from('cdn copy').toString('base64')}`,
    );
  });

  it('records attempts under the owner epoch; one recorded after another owner fenced is dropped and made again', async () => {
    await requestDelivery();
    post.mockImplementationOnce(async () => {
      // Another replica took the partition while this one was posting: its marker lands first.
      await project(makeEvent('log.owner-fenced', `${TOPICS.webhooks}:0`, { writer: 'other', partition: 0 }));
      return { ok: true, status: 200 };
    });
    post.mockResolvedValue({ ok: true, status: 200 });

    expect(await useCase.execute({ jobId: 'job_1', partition: 0, attempt: 1 })).toEqual({
      kind: 'delivered',
    });
    const markers = (await temp.events(TOPICS.webhooks)).filter((e) => e.type === 'log.owner-fenced');
    const [first, stale, latest] = markers.map((m) => m.offset);
    expect((await recorded()).map((e) => [e.type, e.fence])).toEqual([
      ['webhook.delivered', first],
      ['webhook.delivered', latest],
    ]);
    expect(stale).toBeGreaterThan(first!);
    expect(post).toHaveBeenCalledTimes(2);
    expect(await deliveries.get('job_1')).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(await deliveries.epoch(0)).toBe(latest);
  });
});
