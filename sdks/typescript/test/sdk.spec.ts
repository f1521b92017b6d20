import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess, type ServiceProcess } from '@thumbforge/embedded/test/support/process.js';
import { admin, eventually } from '@thumbforge/embedded/test/support/http.js';
import { startReceiver } from '@thumbforge/embedded/test/support/webhook-receiver.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  signedImageUrl,
  Thumbforge,
  ThumbforgeError,
  verifyWebhook,
  WebhookVerificationError,
  type GenerationResult,
} from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The SDK against the built embedded service, as a user's program would use it. */
describe('TypeScript SDK against the embedded service', () => {
  let service: ServiceProcess;
  let account: { accountId: string; apiKey: string };
  let client: Thumbforge;

  beforeAll(async () => {
    service = await startProcess(mkdtempSync(join(tmpdir(), 'tf-sdk-')), { RATE_LIMITS: 'pro=1000' });
    account = await admin(service.url).createAccount('pro');
    client = new Thumbforge({ apiKey: account.apiKey, baseUrl: service.url });
  });
  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
  });

  const reservations = async () =>
    ((await admin(service.url).ledger(account.accountId)).body as Array<{ kind: string }>).filter(
      (e) => e.kind === 'reserved',
    ).length;

  it('generates: a typed result whose image decodes to the format', async () => {
    const result: GenerationResult = await client.generate({ title: 'From the SDK', format: 'linkedin' });
    expect(result.generationId).toMatch(/^gen_/);
    expect(result.dimensions).toEqual({ width: 1200, height: 627 });
    const meta = await sharp(Buffer.from(result.image.split(',')[1]!, 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1200, 627]);
  });

  it('a retry after a lost answer reuses the idempotency key: charged once', async () => {
    const before = await reservations();
    const sent: string[] = [];
    let calls = 0;
    const flaky = new Thumbforge({
      apiKey: account.apiKey,
      baseUrl: service.url,
      sleep: async () => {},
      // The first answer is lost after the server has handled the request.
      fetch: async (input, init) => {
        sent.push(new Headers(init?.headers).get('idempotency-key')!);
        const res = await fetch(input, init);
        if (++calls === 1) throw new TypeError('socket hang up');
        return res;
      },
    });
    const result = await flaky.generate({ title: 'Lost answer', format: 'x' });
    expect(result.generationId).toMatch(/^gen_/);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe(sent[1]);
    expect((await reservations()) - before).toBe(1);
  });

  it('honours Retry-After on 429 and 5xx, then gives up with a typed error', async () => {
    const waits: number[] = [];
    let calls = 0;
    const busy = new Thumbforge({
      apiKey: account.apiKey,
      baseUrl: service.url,
      maxRetries: 2,
      sleep: async (ms) => void waits.push(ms),
      fetch: async (input, init) => {
        calls++;
        if (calls === 1)
          return new Response('{"error":"Rate limit exceeded","code":"RATE_LIMITED"}', {
            status: 429,
            headers: { 'retry-after': '2' },
          });
        if (calls === 2)
          return new Response('{"error":"boom","code":"INTERNAL_ERROR"}', {
            status: 503,
            headers: { 'retry-after': '1' },
          });
        return fetch(input, init);
      },
    });
    const result = await busy.generate({ title: 'After waiting', format: 'x' });
    expect(result.generationId).toMatch(/^gen_/);
    expect(waits).toEqual([2000, 1000]);

    const limited = new Thumbforge({
      apiKey: account.apiKey,
      baseUrl: service.url,
      maxRetries: 2,
      sleep: async (ms) => void waits.push(ms),
      fetch: async () =>
        new Response('{"error":"Generation limit exceeded","code":"GENERATION_LIMIT_EXCEEDED"}', {
          status: 429,
          headers: { 'retry-after': '86400' },
        }),
    });
    const error = await limited.generate({ title: 'x', format: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThumbforgeError);
    expect(error).toMatchObject({ status: 429, code: 'GENERATION_LIMIT_EXCEEDED', retryAfterMs: 86_400_000 });
    expect(waits).toEqual([2000, 1000]);
  });

  it('bad input is a ThumbforgeError with the status, code and message', async () => {
    const error = await client.generate({ title: 'Bad', format: 'square' as 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThumbforgeError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect((error as Error).message).toMatch(/format/);
    const reused = await client
      .generate({ title: 'Other body', format: 'x' }, { idempotencyKey: 'sdk-reuse' })
      .then(() => client.generate({ title: 'Another body', format: 'x' }, { idempotencyKey: 'sdk-reuse' }))
      .catch((e: unknown) => e);
    expect(reused).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('async: waits for the job, and verifies the webhook with both signatures', async () => {
    const secret = (
      await admin(service.url).call('POST', `/accounts/${account.accountId}/webhook-secrets`, {})
    ).body.secret as string;
    const receiver = await startReceiver();
    try {
      const job = await eventually(async () => {
        const accepted = await client.generate({ title: 'Async SDK', format: 'x', webhookUrl: receiver.url });
        const count = receiver.received.length;
        await eventually(async () => receiver.received.length > count);
        return receiver.received.at(-1)!.headers['webhook-signature'] ? accepted : undefined;
      });
      const done = await client.waitForJob(job.jobId, { intervalMs: 100 });
      expect(done.status).toBe('completed');
      expect(done.result?.dimensions).toEqual({ width: 1200, height: 675 });
      const hook = receiver.received.at(-1)!;
      const event = verifyWebhook(hook.body, hook.headers, { webhookSecret: secret, apiKey: account.apiKey });
      expect(event).toMatchObject({ event: 'generation.completed', jobId: job.jobId });
      expect(() =>
        verifyWebhook(hook.body.replace('completed', 'failed'), hook.headers, { webhookSecret: secret }),
      ).toThrow(WebhookVerificationError);
      expect(() =>
        verifyWebhook(hook.body, hook.headers, {
          webhookSecret: secret,
          now: new Date(Date.now() + 600_000),
        }),
      ).toThrow(/tolerance/);
    } finally {
      await receiver.close();
    }
  });

  it('builds signed image URLs the service accepts', async () => {
    const secret = (
      await admin(service.url).call('POST', `/accounts/${account.accountId}/url-signing-secrets`)
    ).body.secret as string;
    const url = signedImageUrl({
      baseUrl: service.url,
      accountId: account.accountId,
      secret,
      params: { title: 'Ünïcode & spaces: 100%', format: 'blogpost', useLogo: false },
      expiresAt: new Date(Date.now() + 3600_000),
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1200, 630]);
    expect((await fetch(url.replace('blogpost', 'youtube'))).status).toBe(403);
  });
});

describe('the package', () => {
  it('packs with npm pack and works when installed alone', () => {
    const out = mkdtempSync(join(tmpdir(), 'tf-sdk-pack-'));
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
        cwd: join(here, '..'),
        encoding: 'utf8',
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed[0]!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'dist/index.js', 'dist/index.d.ts']));
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);

    const app = mkdtempSync(join(tmpdir(), 'tf-sdk-app-'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(out, packed[0]!.filename)], {
      cwd: app,
      stdio: 'ignore',
    });
    writeFileSync(
      join(app, 'check.mjs'),
      `import { Thumbforge, signedImageUrl, verifyWebhook, ERROR_CODES } from '@thumbforge/sdk';
       console.log(JSON.stringify({ client: typeof Thumbforge, url: signedImageUrl({ baseUrl: 'http://h', accountId: 'acc_1', secret: 's', params: { title: 't', format: 'x' } }), verify: typeof verifyWebhook, codes: ERROR_CODES.length }));`,
    );
    const result = JSON.parse(execFileSync(process.execPath, ['check.mjs'], { cwd: app, encoding: 'utf8' }));
    expect(result).toMatchObject({ client: 'function', verify: 'function' });
    expect(result.url).toMatch(/^http:\/\/h\/v1\/og\/acc_1\.webp\?format=x&title=t&sig=[\w-]{43}$/);
    expect(
      JSON.parse(readFileSync(join(app, 'node_modules/@thumbforge/sdk/package.json'), 'utf8')).dependencies,
    ).toBeUndefined();
  });
});
