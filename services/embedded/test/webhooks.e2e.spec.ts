import { describe, expect, it } from 'vitest';
import { asyncWebhookChecks, verifies } from './suites/webhooks.js';
import { admin, eventually, generate, startApp } from './support/app.js';
import { startReceiver } from './support/webhook-receiver.js';

describe('async generation and webhooks (spec §6)', () => {
  asyncWebhookChecks(async () => {
    const t = await startApp({ RATE_LIMITS: 'pro=1000', WEBHOOK_TIMEOUT_MS: '300' });
    return {
      url: t.url,
      cdnUrl: t.config.cdnUrl,
      now: () => t.clock.now(),
      tick: () => t.clock.advance(1000),
      close: () => t.close(),
    };
  });
});

describe('failed generations and hostile webhook targets', () => {
  it('a render that fails sends generation.failed and releases the credits', async () => {
    const t = await startApp({ RENDER_TIMEOUT_MS: '1' });
    const receiver = await startReceiver();
    try {
      const account = await admin(t.url).createAccount('pro');
      const res = await generate(t.url, account.apiKey, {
        title: 'Too slow',
        format: 'youtube',
        model: 'hd',
        outputFormat: 'png',
        webhookUrl: receiver.url,
      });
      expect(res.status).toBe(202);
      await eventually(async () => receiver.received.length === 1);
      const hook = receiver.received[0]!;
      const body = JSON.parse(hook.body);
      expect(Object.keys(body)).toEqual(['event', 'jobId', 'error', 'timestamp']);
      expect(body).toMatchObject({ event: 'generation.failed', jobId: res.body.jobId });
      expect(body.error).toMatch(/timed out/i);
      expect(verifies(hook.body, hook.headers['x-service-signature'] as string, account.apiKey)).toBe(true);
      await eventually(
        async () => (await admin(t.url).account(account.accountId)).body.credits.reserved === 0,
      );
      expect((await admin(t.url).account(account.accountId)).body.credits).toMatchObject({
        used: 0,
        remaining: 2500,
      });
      t.clock.advance(1000);
      const sync = await generate(t.url, account.apiKey, {
        title: 'Sync fail',
        format: 'youtube',
        model: 'hd',
        outputFormat: 'png',
      });
      expect(sync.status).toBe(500);
      expect(sync.body.code).toBe('GENERATION_FAILED');
    } finally {
      await receiver.close();
      await t.close();
    }
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://[::1]/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.7/hook',
    'http://2130706433/hook',
  ])('refuses %s with 400 unless private targets are allowed', async (url) => {
    const t = await startApp({ WEBHOOK_ALLOW_PRIVATE: '0' });
    try {
      const account = await admin(t.url).createAccount('pro');
      const res = await generate(t.url, account.apiKey, { title: 'SSRF', format: 'x', webhookUrl: url });
      expect(res.status).toBe(400);
      // A numeric host is already refused by the URL syntax check; the rest by the address guard.
      expect(['UNSAFE_WEBHOOK_URL', 'INVALID_REQUEST']).toContain(res.body.code);
      expect(res.body.error).toMatch(/webhookUrl/);
      expect((await admin(t.url).account(account.accountId)).body.credits.reserved).toBe(0);
    } finally {
      await t.close();
    }
  });
});
