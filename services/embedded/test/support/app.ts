import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Plan } from '@thumbforge/contracts';
import { loadConfig, type Clock, type Config } from '@thumbforge/platform';
import { createEmbeddedApp } from '../../src/bootstrap.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** A clock the test moves by hand; starts at a fixed mid-month instant. */
export class TestClock implements Clock {
  constructor(private current = new Date('2026-03-10T12:00:00Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
  set(date: Date): void {
    this.current = new Date(date);
  }
}

export interface TestApp {
  url: string;
  app: NestExpressApplication;
  config: Config;
  clock: TestClock;
  dataDir: string;
  close(): Promise<void>;
}

/** A free loopback port, so CDN links (built from PORT) point at the app under test. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startApp(
  env: Record<string, string> = {},
  options: { clock?: TestClock; dataDir?: string } = {},
): Promise<TestApp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tf-e2e-'));
  const port = await freePort();
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_RETRY_DELAYS_MS: '50,100,200',
    WEBHOOK_TIMEOUT_MS: '2000',
    ...env,
  });
  const clock = options.clock ?? new TestClock();
  const app = await createEmbeddedApp(config, { clock });
  await app.listen(port, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, app, config, clock, dataDir, close: () => app.close() };
}

export interface Json {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function request(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Json> {
  const { json, ...rest } = init;
  const res = await fetch(url, {
    ...rest,
    headers: {
      ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(rest.headers as Record<string, string>),
    },
    body: json !== undefined ? JSON.stringify(json) : rest.body,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // left as text
  }
  return { status: res.status, headers: res.headers, body };
}

export function admin(base: string) {
  const call = (method: string, path: string, json?: unknown) =>
    request(`${base}/admin/v1${path}`, { method, json, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return {
    call,
    async createAccount(plan: Plan, apiAccess = true): Promise<{ accountId: string; apiKey: string }> {
      const res = await call('POST', '/accounts', { plan, apiAccess });
      if (res.status !== 201)
        throw new Error(`account creation failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    account: (id: string) => call('GET', `/accounts/${id}`),
    ledger: (id: string) => call('GET', `/accounts/${id}/ledger`),
  };
}

export function generate(
  base: string,
  apiKey: string | null,
  json: unknown,
  headers: Record<string, string> = {},
) {
  return request(`${base}/v1/generate`, {
    method: 'POST',
    json,
    headers: { ...(apiKey ? { 'x-api-key': apiKey } : {}), ...headers },
  });
}

export async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  stepMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
