import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { admin, eventually, generate } from '../support/http.js';
import { decode } from '../support/images.js';
import type { ApiTarget } from './target.js';

export interface IdempotencyTarget extends ApiTarget {
  /** Every gateway replica; duplicates are spread over them. Defaults to `url`. */
  replicaUrls?: string[];
}

type Ledger = Array<{ kind: string; jobId: string | null; amount: number }>;

/**
 * `Idempotency-Key` on `POST /v1/generate` (Stripe's semantics): replay, conflict, concurrent
 * duplicates executing once. `start` must allow every plan 1000 requests per second and deliver
 * webhooks to loopback addresses.
 */
export function idempotencyChecks(start: () => Promise<IdempotencyTarget>): void {
  let t: IdempotencyTarget;
  beforeAll(async () => {
    t = await start();
  });
  afterAll(() => t?.close());
  beforeEach(() => t.tick());

  const ledger = async (accountId: string) => (await admin(t.url).ledger(accountId)).body as Ledger;
  const reservations = async (accountId: string) =>
    (await ledger(accountId)).filter((e) => e.kind === 'reserved');

  it('the same key and body replays the first result and charges once', async () => {
    const account = await admin(t.url).createAccount('pro');
    const key = randomUUID();
    const body = { title: 'Retry me', format: 'youtube' };
    const first = await generate(t.url, account.apiKey, body, { 'idempotency-key': key });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await generate(t.url, account.apiKey, body, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.generationId).toBe(first.body.generationId);
    expect(again.body.imageUrl).toBe(first.body.imageUrl);
    expect(again.body.image).toBe(first.body.image);
    expect(await decode(again.body.image)).toMatchObject({ format: 'webp', width: 1280, height: 720 });
    expect(await reservations(account.accountId)).toHaveLength(1);
    const credits = await eventually(async () => {
      const c = (await admin(t.url).account(account.accountId)).body.credits;
      return c.reserved === 0 && c;
    });
    expect(credits.used).toBe(10);
  });

  it('an async replay returns the same jobId and sends no second job', async () => {
    const account = await admin(t.url).createAccount('pro');
    const key = randomUUID();
    const body = { title: 'Async retry', format: 'x', webhookUrl: 'http://127.0.0.1:9/hook' };
    const first = await generate(t.url, account.apiKey, body, { 'idempotency-key': key });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const again = await generate(t.url, account.apiKey, body, { 'idempotency-key': key });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await reservations(account.accountId)).map((e) => e.jobId)).toEqual([first.body.jobId]);
  });

  it('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED and charges nothing', async () => {
    const account = await admin(t.url).createAccount('pro');
    const key = randomUUID();
    const first = await generate(
      t.url,
      account.apiKey,
      { title: 'One', format: 'x' },
      { 'idempotency-key': key },
    );
    expect(first.status).toBe(200);
    const other = await generate(
      t.url,
      account.apiKey,
      { title: 'Two', format: 'x' },
      { 'idempotency-key': key },
    );
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      error: 'Idempotency-Key was already used with a different request body',
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(await reservations(account.accountId)).toHaveLength(1);
  });

  it('legacy spellings of one request are the same body; keys belong to one account', async () => {
    const a = await admin(t.url).createAccount('pro');
    const b = await admin(t.url).createAccount('pro');
    const key = randomUUID();
    const first = await generate(
      t.url,
      a.apiKey,
      { title: 'Legacy', format: 'x', imageStyle: 'faceless' },
      {
        'idempotency-key': key,
      },
    );
    const modern = await generate(
      t.url,
      a.apiKey,
      { title: 'Legacy', format: 'x', usePhoto: false },
      {
        'idempotency-key': key,
      },
    );
    expect(modern.body.generationId).toBe(first.body.generationId);
    const otherAccount = await generate(
      t.url,
      b.apiKey,
      { title: 'Legacy', format: 'x' },
      { 'idempotency-key': key },
    );
    expect(otherAccount.status).toBe(200);
    expect(otherAccount.body.generationId).not.toBe(first.body.generationId);
  });

  it('a refusal is replayed as it was; a malformed key is 400', async () => {
    const account = await admin(t.url).createAccount('free');
    const key = randomUUID();
    const body = { title: 'HD please', format: 'x', model: 'hd' };
    const first = await generate(t.url, account.apiKey, body, { 'idempotency-key': key });
    expect(first.status).toBe(403);
    const again = await generate(t.url, account.apiKey, body, { 'idempotency-key': key });
    expect(again.status).toBe(403);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const bad = await generate(
      t.url,
      account.apiKey,
      { title: 'x', format: 'x' },
      { 'idempotency-key': 'two words' },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_IDEMPOTENCY_KEY');
  });

  it('20 concurrent duplicates execute once and all answer the same result', async () => {
    const account = await admin(t.url).createAccount('business');
    const key = randomUUID();
    const urls = t.replicaUrls ?? [t.url];
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        generate(
          urls[i % urls.length]!,
          account.apiKey,
          { title: 'Twenty at once', format: 'instagram' },
          {
            'idempotency-key': key,
          },
        ),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(responses.map((r) => r.body.generationId)).size).toBe(1);
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await decode(responses[19]!.body.image)).toMatchObject({ width: 1024, height: 1024 });
    expect(await reservations(account.accountId)).toHaveLength(1);
    const captured = await eventually(async () => {
      const entries = (await ledger(account.accountId)).filter((e) => e.kind === 'captured');
      return entries.length > 0 && entries;
    });
    expect(captured).toHaveLength(1);
  });
}
