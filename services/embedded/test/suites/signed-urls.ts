import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { admin, eventually, request } from '../support/http.js';
import type { ApiTarget } from './target.js';
import sharp from 'sharp';

/** The documented signing recipe, written again from the docs as a user would. */
export function signedImageUrl(
  base: string,
  accountId: string,
  secret: string,
  params: Record<string, string>,
  outputFormat = 'webp',
): string {
  const path = `/v1/og/${accountId}.${outputFormat}`;
  const query = Object.keys(params)
    .sort()
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(params[name]!)}`)
    .join('&');
  const sig = createHmac('sha256', secret).update(`${path}?${query}`).digest('base64url');
  return `${base}${path}?${query}&sig=${sig}`;
}

async function fetchImage(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/**
 * Signed image URLs (`GET /v1/og/…`): render and charge on first fetch, then storage with ETag and
 * conditional requests; tampered and expired URLs are 403. `start` must allow every plan 1000
 * requests per second.
 */
export function signedUrlChecks(start: () => Promise<ApiTarget>): void {
  let t: ApiTarget;
  let account: { accountId: string; apiKey: string };
  let secret: string;
  beforeAll(async () => {
    t = await start();
    account = await admin(t.url).createAccount('pro');
    const res = await admin(t.url).call('POST', `/accounts/${account.accountId}/url-signing-secrets`);
    expect(res.status).toBe(201);
    secret = res.body.secret;
    expect(secret).toMatch(/^tfus_[A-Za-z0-9]{32}$/);
  });
  afterAll(() => t?.close());
  beforeEach(() => t.tick());

  const url = (params: Record<string, string>, outputFormat?: string) =>
    signedImageUrl(t.url, account.accountId, secret, params, outputFormat);
  // The ledger lists the newest entries first.
  const reservations = async () =>
    ((await admin(t.url).ledger(account.accountId)).body as Array<{ kind: string; amount: number }>)
      .filter((e) => e.kind === 'reserved')
      .reverse();

  it('renders on the first fetch, charges once, then serves from storage with ETag and 304', async () => {
    const before = (await reservations()).length;
    const link = url({ title: 'My blog post', format: 'blogpost', category: 'tech-saas' });
    const first = await fetchImage(link);
    expect(first.status, first.body.toString()).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/webp');
    expect(first.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const meta = await sharp(first.body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1200, 630]);

    const again = await fetchImage(link);
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.body.equals(first.body)).toBe(true);
    const conditional = await fetchImage(link, { 'if-none-match': etag! });
    expect(conditional.status).toBe(304);
    expect(conditional.body.length).toBe(0);
    expect(conditional.headers.get('etag')).toBe(etag);
    expect(await fetchImage(link, { 'if-none-match': '"other"' })).toMatchObject({ status: 200 });

    const charged = (await reservations()).slice(before);
    expect(charged.map((e) => e.amount)).toEqual([10]);
  });

  it('concurrent first fetches of one parameter set render and charge once', async () => {
    const before = (await reservations()).length;
    const link = url({ title: 'Five at once', format: 'x', model: 'hd' }, 'png');
    const responses = await Promise.all(Array.from({ length: 5 }, () => fetchImage(link)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (const r of responses) expect(r.body.equals(responses[0]!.body)).toBe(true);
    const meta = await sharp(responses[0]!.body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 2400, 1350]);
    expect((await reservations()).slice(before).map((e) => e.amount)).toEqual([20]);
  });

  it('an expiring URL is cached until it expires, shares the stored image, and is 403 after', async () => {
    const before = (await reservations()).length;
    const nowS = Math.floor(t.now().getTime() / 1000);
    const plain = await fetchImage(url({ title: 'Expiring', format: 'youtube' }));
    const expiring = await fetchImage(url({ title: 'Expiring', format: 'youtube', exp: String(nowS + 600) }));
    expect(expiring.status).toBe(200);
    expect(expiring.body.equals(plain.body)).toBe(true);
    const maxAge = Number(/max-age=(\d+)/.exec(expiring.headers.get('cache-control')!)![1]);
    expect(maxAge).toBeGreaterThan(500);
    expect(maxAge).toBeLessThanOrEqual(600);
    expect((await reservations()).length - before).toBe(1);

    const expired = await request(url({ title: 'Expiring', format: 'youtube', exp: String(nowS - 1) }));
    expect(expired.status).toBe(403);
    expect(expired.body).toEqual({ error: 'This image URL has expired', code: 'URL_EXPIRED' });
  });

  it('a tampered or unsigned URL is 403 and charges nothing', async () => {
    const before = (await reservations()).length;
    const link = url({ title: 'Original', format: 'x' });
    const tampered = await request(link.replace('title=Original', 'title=Forged'));
    expect(tampered.status).toBe(403);
    expect(tampered.body).toEqual({ error: 'Invalid signature', code: 'INVALID_SIGNATURE' });
    expect((await request(link.replace(/&sig=.*$/, ''))).status).toBe(403);
    const otherAccount = await admin(t.url).createAccount('pro');
    expect((await request(link.replace(account.accountId, otherAccount.accountId))).status).toBe(403);
    // Parameters outside the signed set (tracking tags) change nothing.
    expect((await fetchImage(`${url({ title: 'Tagged', format: 'x' })}&utm_source=feed`)).status).toBe(200);
    expect((await reservations()).length - before).toBe(1);
  });

  it('signed but invalid parameters are a 400 with a message', async () => {
    const bad = await request(url({ title: 'Bad', format: 'square' }));
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_REQUEST');
    expect(bad.body.error).toMatch(/format/);
    const flag = await request(url({ title: 'Bad', format: 'x', useLogo: 'yes' }));
    expect(flag.status).toBe(400);
    expect(flag.body.error).toBe('useLogo must be true or false');
  });

  it('issuing a new secret revokes URLs signed with the old one', async () => {
    const link = url({ title: 'Before rotation', format: 'x' });
    expect((await fetchImage(link)).status).toBe(200);
    const res = await admin(t.url).call('POST', `/accounts/${account.accountId}/url-signing-secrets`);
    const revoked = await eventually(async () => {
      const r = await request(link);
      return r.status === 403 && r;
    });
    expect(revoked.body.code).toBe('INVALID_SIGNATURE');
    secret = res.body.secret;
    expect((await fetchImage(url({ title: 'Before rotation', format: 'x' }))).status).toBe(200);
  });
}
