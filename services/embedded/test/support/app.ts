import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadConfig, type Clock, type Config } from '@thumbforge/platform';
import { createEmbeddedApp } from '../../src/bootstrap.js';
import type { ApiTarget } from '../suites/target.js';
import { ADMIN_TOKEN } from './http.js';

export * from './http.js';

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

/** An embedded app as a target of the shared suites: each test moves its clock by a second. */
export function asTarget(app: TestApp): ApiTarget {
  return {
    url: app.url,
    cdnUrl: app.config.cdnUrl,
    now: () => app.clock.now(),
    tick: () => app.clock.advance(1000),
    close: () => app.close(),
  };
}
