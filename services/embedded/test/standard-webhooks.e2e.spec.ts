import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifies } from './suites/webhooks.js';
import { admin, eventually, generate, startApp, TestClock, type TestApp } from './support/app.js';
import { startReceiver, type ReceivedWebhook } from './support/webhook-receiver.js';

const here = dirname(fileURLToPath(import.meta.url));
const PYTHON_DIR = join(here, 'support/python');

/**
 * The project's cached virtualenv with the official Python library. Made before the service starts:
 * creating it blocks this process for seconds, long enough for the service to close a kept-alive
 * connection that the next request would then reuse (ECONNRESET).
 */
function pythonWithVerifier(): string {
  return execFileSync(
    join(here, '../../../tools/infra/python-venv'),
    [join(PYTHON_DIR, 'requirements.txt')],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  ).trim();
}

let python: string;

function verifyInPython(secret: string, hook: ReceivedWebhook): { ok: boolean; output: string } {
  const run = spawnSync(python, [join(PYTHON_DIR, 'verify_standard_webhook.py')], {
    input: JSON.stringify({ secret, headers: standardHeaders(hook), body: hook.body }),
    encoding: 'utf8',
  });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}`.trim() };
}

function standardHeaders(hook: ReceivedWebhook): Record<string, string> {
  return Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
      name,
      String(hook.headers[name]),
    ]),
  );
}

const verifiesInNode = (secret: string, hook: ReceivedWebhook, body = hook.body) => {
  try {
    new Webhook(secret).verify(body, standardHeaders(hook));
    return true;
  } catch {
    return false;
  }
};

/** Standard Webhooks beside the spec's signature, checked by the official libraries. */
describe('Standard Webhooks', () => {
  let app: TestApp;
  let account: { accountId: string; apiKey: string };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    python = pythonWithVerifier();
    // Receivers compare webhook-timestamp with their own clock: the service's must be the real one.
    app = await startApp({ RATE_LIMITS: 'pro=1000' }, { clock: new TestClock(new Date()) });
    account = await admin(app.url).createAccount('pro');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await app?.close();
  });

  const issueSecret = async (overlapSeconds?: number) => {
    const res = await admin(app.url).call(
      'POST',
      `/accounts/${account.accountId}/webhook-secrets`,
      overlapSeconds === undefined ? {} : { overlapSeconds },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    return res.body as { secret: string; previousSecretsExpireAt: string };
  };
  const deliver = async (title: string) => {
    const before = receiver.received.length;
    const res = await generate(app.url, account.apiKey, { title, format: 'x', webhookUrl: receiver.url });
    expect(res.status).toBe(202);
    await eventually(async () => receiver.received.length > before);
    return receiver.received[before]!;
  };

  it('without a secret only X-Service-Signature is sent', async () => {
    const hook = await deliver('No secret yet');
    expect(verifies(hook.body, hook.headers['x-service-signature'] as string, account.apiKey)).toBe(true);
    expect(hook.headers['webhook-signature']).toBeUndefined();
  });

  it('signs with the account secret: the official Node and Python libraries verify it', async () => {
    const { secret } = await issueSecret();
    await eventually(async () => {
      const hook = await deliver('Signed twice');
      return hook.headers['webhook-signature'] !== undefined;
    });
    const hook = receiver.received.at(-1)!;
    expect(hook.headers['webhook-id']).toMatch(/^evt_/);
    expect(Number(hook.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(new Webhook(secret).verify(hook.body, standardHeaders(hook))).toEqual(JSON.parse(hook.body));
    expect(verifyInPython(secret, hook)).toEqual({ ok: true, output: JSON.parse(hook.body).jobId });
    // The spec's signature is unchanged beside it.
    expect(verifies(hook.body, hook.headers['x-service-signature'] as string, account.apiKey)).toBe(true);

    // Tampered bodies, other secrets and replays after the tolerance are refused by both.
    const tampered = hook.body.replace('"generation.completed"', '"generation.failed"');
    expect(verifiesInNode(secret, hook, tampered)).toBe(false);
    expect(verifyInPython(secret, { ...hook, body: tampered }).ok).toBe(false);
    const other = 'whsec_' + Buffer.alloc(24, 7).toString('base64');
    expect(verifiesInNode(other, hook)).toBe(false);
    expect(verifyInPython(other, hook).ok).toBe(false);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 6 * 60 * 1000);
      expect(() => new Webhook(secret).verify(hook.body, standardHeaders(hook))).toThrow(/too old/i);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rotation signs with both secrets during the overlap, then with the new one only', async () => {
    account = await admin(app.url).createAccount('pro');
    const { secret: first } = await issueSecret();
    const { secret: second, previousSecretsExpireAt } = await issueSecret(3600);
    expect(Date.parse(previousSecretsExpireAt) - app.clock.now().getTime()).toBe(3600 * 1000);
    const during = await eventually(async () => {
      const hook = await deliver('During the overlap');
      return String(hook.headers['webhook-signature']).split(' ').length === 2 && hook;
    });
    expect(verifiesInNode(first, during)).toBe(true);
    expect(verifiesInNode(second, during)).toBe(true);
    expect(verifyInPython(first, during).ok).toBe(true);

    const { secret: third } = await issueSecret(0);
    const after = await eventually(async () => {
      const hook = await deliver('After a rotation without overlap');
      return String(hook.headers['webhook-signature']).split(' ').length === 1 && hook;
    });
    expect(verifiesInNode(third, after)).toBe(true);
    expect(verifiesInNode(second, after)).toBe(false);
    expect(verifiesInNode(first, after)).toBe(false);
    expect(verifyInPython(third, after).ok).toBe(true);
    expect(verifyInPython(second, after).ok).toBe(false);
  });

  it('an overlap out of range is a 400 with a message; an unknown account 404', async () => {
    const bad = await admin(app.url).call('POST', `/accounts/${account.accountId}/webhook-secrets`, {
      overlapSeconds: 10 ** 9,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/overlapSeconds must be between 0 and 604800/);
    const missing = await admin(app.url).call('POST', '/accounts/acc_missing/webhook-secrets', {});
    expect(missing.status).toBe(404);
  });
});
