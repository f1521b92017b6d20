import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, eventually, generate, request } from '../support/http.js';
import { pngDataUrl } from '../support/images.js';
import type { ApiTarget } from './target.js';

/**
 * Spec §8 and DESIGN §3/§5: costs, the allowance, no overdraw under concurrency, rebuild.
 * `start` must allow every plan 1000 requests per second. `periodChecks` registers tests that need a
 * controllable clock (the monthly reset); they run before the concurrency check, whose account count
 * includes theirs.
 */
export function creditChecks(start: () => Promise<ApiTarget>, periodChecks?: () => void): void {
  let t: ApiTarget;
  beforeAll(async () => {
    t = await start();
  });
  afterAll(() => t?.close());
  beforeEach(() => t.tick());

  it('charges base + add-ons for every model × usePhoto × useLogo × customAssetsId combination', async () => {
    const a = admin(t.url);
    const account = await a.createAccount('business');
    const image = await pngDataUrl(60, 60);
    await a.call('PUT', `/accounts/${account.accountId}/photo`, { image });
    await a.call('PUT', `/accounts/${account.accountId}/logo`, {
      image,
      position: 'top-left',
      size: 0.2,
      dropShadow: true,
    });
    const set = await a.call('POST', `/accounts/${account.accountId}/reference-sets`, {
      format: 'x',
      images: [image, image],
    });
    let remaining = 10_000;
    for (const model of ['sd', 'hd'] as const)
      for (const usePhoto of [false, true])
        for (const useLogo of [false, true])
          for (const ref of [false, true]) {
            const expected =
              (model === 'hd' ? 20 : 10) + (usePhoto ? 2 : 0) + (useLogo ? 2 : 0) + (ref ? 2 : 0);
            const res = await generate(t.url, account.apiKey, {
              title: `${model} ${usePhoto} ${useLogo} ${ref}`,
              format: 'blogpost',
              model,
              usePhoto,
              useLogo,
              ...(ref ? { customAssetsId: set.body.id } : {}),
            });
            expect(res.status, JSON.stringify(res.body)).toBe(200);
            remaining -= expected;
            expect(
              Number(res.headers.get('x-ratelimit-remaining')),
              `${model} ${usePhoto} ${useLogo} ${ref}`,
            ).toBe(remaining);
          }
    // A sync response follows the render; its capture is billing's next event and may come just after.
    await eventually(async () => (await a.account(account.accountId)).body.credits.reserved === 0);
    const ledger = await a.ledger(account.accountId);
    const captured = ledger.body
      .filter((e: { kind: string }) => e.kind === 'captured')
      .map((e: { amount: number }) => e.amount);
    expect(captured.sort((x: number, y: number) => x - y)).toEqual([
      10, 12, 12, 12, 14, 14, 14, 16, 20, 22, 22, 22, 24, 24, 24, 26,
    ]);
    expect((await a.account(account.accountId)).body.credits).toMatchObject({
      allowance: 10_000,
      used: 10_000 - remaining,
      reserved: 0,
      remaining,
    });
  });

  it('429 Generation limit exceeded when the allowance cannot cover the cost, and nothing is charged', async () => {
    const a = admin(t.url);
    const account = await a.createAccount('free');
    for (let i = 0; i < 5; i++)
      expect((await generate(t.url, account.apiKey, { title: `n${i}`, format: 'x' })).status).toBe(200);
    const res = await generate(t.url, account.apiKey, { title: 'one too many', format: 'x' });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: 'Generation limit exceeded', code: 'GENERATION_LIMIT_EXCEEDED' });
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    await eventually(async () => (await a.account(account.accountId)).body.credits.reserved === 0);
    expect((await a.account(account.accountId)).body.credits).toMatchObject({
      allowance: 50,
      used: 50,
      reserved: 0,
      remaining: 0,
    });
  });

  periodChecks?.();

  it('50 concurrent requests on a balance that covers 20: exactly 20 succeed, never below zero, rebuild equals live', async () => {
    const a = admin(t.url);
    const account = await a.createAccount('creator');
    // Bring the balance to exactly 200 credits (20 sd generations): 750 - 55 × 10.
    for (let batch = 0; batch < 11; batch++) {
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          generate(t.url, account.apiKey, { title: `drain ${batch}.${i}`, format: 'x' }),
        ),
      );
      expect(results.every((r) => r.status === 200)).toBe(true);
    }
    expect((await a.account(account.accountId)).body.credits.remaining).toBe(200);

    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        generate(t.url, account.apiKey, { title: `race ${i}`, format: 'instagram' }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(
      responses.filter((r) => r.status === 429).every((r) => r.body.code === 'GENERATION_LIMIT_EXCEEDED'),
    ).toBe(true);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    const remainingSeen = responses.map((r) => Number(r.headers.get('x-ratelimit-remaining')));
    expect(Math.min(...remainingSeen)).toBeGreaterThanOrEqual(0);

    // A sync response follows the render; its capture is billing's next event and may come just after.
    await eventually(async () => (await a.account(account.accountId)).body.credits.reserved === 0);
    const credits = (await a.account(account.accountId)).body.credits;
    expect(credits).toMatchObject({ allowance: 750, used: 750, reserved: 0, remaining: 0 });
    const ledger = (await a.ledger(account.accountId)).body as Array<{ kind: string; jobId: string }>;
    expect(ledger.filter((e) => e.kind === 'reserved')).toHaveLength(75);
    expect(ledger.filter((e) => e.kind === 'captured')).toHaveLength(75);

    const rebuild = await request(`${t.url}/admin/v1/rebuild`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(rebuild.status).toBe(200);
    const lines = String(rebuild.body)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const report = lines.at(-1).report;
    expect(lines.length).toBeGreaterThan(1);
    expect(report.accounts.equal).toBe(true);
    expect(report.jobs.equal).toBe(true);
    expect(report.accounts.count).toBeGreaterThanOrEqual(4);
  });
}
