import { describe, expect, it } from 'vitest';
import { creditChecks } from './suites/credits.js';
import { admin, asTarget, generate, startApp, type TestApp } from './support/app.js';

/** Spec §8 and DESIGN §3/§5: costs, allowance, monthly reset, no overdraw under concurrency, rebuild. */
describe('credits', () => {
  let app: TestApp;
  creditChecks(
    async () => {
      app = await startApp({ RATE_LIMITS: 'free=1000,creator=1000,pro=1000,business=1000' });
      return asTarget(app);
    },
    () => {
      it('restores the allowance in a new calendar month (UTC), as a period-started event', async () => {
        const a = admin(app.url);
        const account = await a.createAccount('free');
        for (let i = 0; i < 5; i++) await generate(app.url, account.apiKey, { title: `m${i}`, format: 'x' });
        expect((await generate(app.url, account.apiKey, { title: 'blocked', format: 'x' })).status).toBe(429);
        const now = app.clock.now();
        app.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 5)));
        const before = (await a.account(account.accountId)).body.credits;
        expect(before).toMatchObject({ used: 0, remaining: 50 });
        const res = await generate(app.url, account.apiKey, { title: 'new month', format: 'x' });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-remaining')).toBe('40');
        const ledger = (await a.ledger(account.accountId)).body as Array<{ kind: string }>;
        expect(ledger.filter((e) => e.kind === 'period-started')).toHaveLength(2);
      });
    },
  );
});
