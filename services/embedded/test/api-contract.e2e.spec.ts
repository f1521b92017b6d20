import { describe, expect, it } from 'vitest';
import { contractChecks } from './suites/contract.js';
import { admin, generate, startApp } from './support/app.js';

describe('POST /v1/generate: the contract', () => {
  contractChecks(async () => {
    const t = await startApp({ RATE_LIMITS: 'business=1000,free=1000,creator=1000' });
    return {
      url: t.url,
      cdnUrl: t.config.cdnUrl,
      now: () => t.clock.now(),
      tick: () => t.clock.advance(1000),
      close: () => t.close(),
    };
  });

  describe('rate limit (DESIGN §4 step 2)', () => {
    it('429 Rate limit exceeded with Retry-After past the per-key limit', async () => {
      const limited = await startApp();
      try {
        const account = await admin(limited.url).createAccount('free');
        const first = await generate(limited.url, account.apiKey, { title: 'a', format: 'x' });
        expect(first.status).toBe(200);
        const second = await generate(limited.url, account.apiKey, { title: 'a', format: 'x' });
        expect(second.status).toBe(429);
        expect(second.body).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMITED' });
        expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        limited.clock.advance(1000);
        expect((await generate(limited.url, account.apiKey, { title: 'a', format: 'x' })).status).toBe(200);
      } finally {
        await limited.close();
      }
    });
  });
});
