import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { admin, eventually, generate, request } from '../support/http.js';
import { decode } from '../support/images.js';
import { startReceiver } from '../support/webhook-receiver.js';
import type { ApiTarget } from './target.js';

/** The reference verification of spec §6.1: HMAC over the re-serialised parsed body, constant-time compare. */
export function verifies(rawBody: string, signature: string | undefined, key: string): boolean {
  const expected = createHmac('sha256', key)
    .update(JSON.stringify(JSON.parse(rawBody)))
    .digest('hex');
  return (
    !!signature &&
    signature.length === expected.length &&
    timingSafeEqual(Buffer.from(signature), Buffer.from(expected))
  );
}

/**
 * Spec §6: 202, signed webhooks, retries with identical bodies, failure after four attempts.
 * `start` must allow pro keys 1000 requests per second, deliver to loopback addresses, retry after
 * delays of a few hundred milliseconds at most, and give up on a receiver after about 300 ms.
 */
export function asyncWebhookChecks(start: () => Promise<ApiTarget>): void {
  let t: ApiTarget;
  let pro: { accountId: string; apiKey: string };
  beforeAll(async () => {
    t = await start();
    pro = await admin(t.url).createAccount('pro');
  });
  afterAll(() => t?.close());
  beforeEach(() => t.tick());

  const job = (jobId: string) =>
    request(`${t.url}/v1/jobs/${jobId}`, { headers: { 'x-api-key': pro.apiKey } });

  it('202 at once with the job body, then a signed generation.completed webhook', async () => {
    const receiver = await startReceiver();
    try {
      const res = await generate(t.url, pro.apiKey, {
        title: 'Async!',
        format: 'x',
        webhookUrl: receiver.url,
      });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        jobId: expect.stringMatching(/^job_/),
        status: 'processing',
        webhookUrl: receiver.url,
      });
      await eventually(async () => receiver.received.length === 1);
      const hook = receiver.received[0]!;
      const body = JSON.parse(hook.body);
      expect(Object.keys(body)).toEqual(['event', 'jobId', 'data', 'timestamp']);
      expect(body.event).toBe('generation.completed');
      expect(body.jobId).toBe(res.body.jobId);
      expect(Object.keys(body.data).sort()).toEqual([
        'dimensions',
        'format',
        'generationId',
        'image',
        'imageUrl',
        'outputFormat',
      ]);
      expect(body.data).toMatchObject({
        format: 'x',
        outputFormat: 'webp',
        dimensions: { width: 1200, height: 675 },
      });
      expect(await decode(body.data.image)).toMatchObject({ format: 'webp', width: 1200, height: 675 });
      expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(hook.body).toBe(JSON.stringify(body));
      expect(verifies(hook.body, hook.headers['x-service-signature'] as string, pro.apiKey)).toBe(true);
      expect(verifies(hook.body, hook.headers['x-service-signature'] as string, 'tf_live_wrong')).toBe(false);
      const status = await eventually(async () => {
        const s = await job(res.body.jobId);
        return s.body.webhook?.status === 'delivered' && s;
      });
      expect(status.body).toMatchObject({
        status: 'completed',
        webhook: { status: 'delivered', attempts: 1 },
      });
      expect(status.body.result.generationId).toBe(body.data.generationId);
    } finally {
      await receiver.close();
    }
  });

  it('a receiver answering 500 twice then 200 gets exactly 3 identical attempts', async () => {
    const receiver = await startReceiver((n) => (n <= 2 ? 500 : 200));
    try {
      const res = await generate(t.url, pro.apiKey, {
        title: 'Retry me',
        format: 'youtube',
        webhookUrl: receiver.url,
      });
      await eventually(async () => (await job(res.body.jobId)).body.webhook?.status === 'delivered');
      await new Promise((r) => setTimeout(r, 400));
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
      expect(receiver.received.map((r) => r.headers['x-thumbforge-delivery-attempt'])).toEqual([
        '1',
        '2',
        '3',
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('a receiver that never answers gets 4 attempts, and the job shows the delivery failed', async () => {
    const receiver = await startReceiver(() => 'hang');
    try {
      const res = await generate(t.url, pro.apiKey, {
        title: 'Nobody home',
        format: 'youtube',
        webhookUrl: receiver.url,
      });
      const status = await eventually(async () => {
        const s = await job(res.body.jobId);
        return s.body.webhook?.status === 'failed' && s;
      });
      expect(receiver.received).toHaveLength(4);
      expect(status.body).toMatchObject({ status: 'completed', webhook: { status: 'failed', attempts: 4 } });
      // A failed delivery does not refund a successful render.
      const credits = (await admin(t.url).account(pro.accountId)).body.credits;
      expect(credits.reserved).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('another account cannot see the job', async () => {
    const other = await admin(t.url).createAccount('pro');
    const receiver = await startReceiver();
    try {
      const res = await generate(t.url, pro.apiKey, { title: 'Mine', format: 'x', webhookUrl: receiver.url });
      const theirs = await request(`${t.url}/v1/jobs/${res.body.jobId}`, {
        headers: { 'x-api-key': other.apiKey },
      });
      expect(theirs.status).toBe(404);
      await eventually(async () => receiver.received.length === 1);
    } finally {
      await receiver.close();
    }
  });

  it('signs with the current key after rotation', async () => {
    const account = await admin(t.url).createAccount('business');
    const rotated = (await admin(t.url).call('POST', `/accounts/${account.accountId}/api-keys`)).body
      .apiKey as string;
    const receiver = await startReceiver();
    try {
      await generate(t.url, rotated, { title: 'Rotated', format: 'x', webhookUrl: receiver.url });
      await eventually(async () => receiver.received.length === 1);
      const hook = receiver.received[0]!;
      expect(verifies(hook.body, hook.headers['x-service-signature'] as string, rotated)).toBe(true);
      expect(verifies(hook.body, hook.headers['x-service-signature'] as string, account.apiKey)).toBe(false);
    } finally {
      await receiver.close();
    }
  });

  it('the public test key delivers a placeholder webhook signed with the test key', async () => {
    const receiver = await startReceiver();
    try {
      const res = await generate(t.url, 'tf_test_public', {
        title: 'Ping',
        format: 'instagram',
        webhookUrl: receiver.url,
      });
      expect(res.status).toBe(202);
      await eventually(async () => receiver.received.length === 1);
      const hook = receiver.received[0]!;
      expect(verifies(hook.body, hook.headers['x-service-signature'] as string, 'tf_test_public')).toBe(true);
      expect(await decode(JSON.parse(hook.body).data.image)).toMatchObject({ width: 1024, height: 1024 });
    } finally {
      await receiver.close();
    }
  });
}
