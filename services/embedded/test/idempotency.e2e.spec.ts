import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idempotencyChecks } from './suites/idempotency.js';
import { admin, asTarget, generate, startApp } from './support/app.js';
import { decode } from './support/images.js';
import { startProcess } from './support/process.js';

const ENV = { RATE_LIMITS: 'free=1000,creator=1000,pro=1000,business=1000' };

describe('Idempotency-Key', () => {
  describe('on the embedded service', () =>
    idempotencyChecks(async () => {
      const app = await startApp(ENV);
      return asTarget(app);
    }));

  it('keys expire 24 h after their first use', async () => {
    const app = await startApp(ENV);
    try {
      const account = await admin(app.url).createAccount('pro');
      const key = randomUUID();
      const first = await generate(
        app.url,
        account.apiKey,
        { title: 'Day one', format: 'x' },
        {
          'idempotency-key': key,
        },
      );
      app.clock.advance(24 * 60 * 60 * 1000 - 1000);
      const sameDay = await generate(
        app.url,
        account.apiKey,
        { title: 'Day two', format: 'x' },
        {
          'idempotency-key': key,
        },
      );
      expect(sameDay.status).toBe(422);
      app.clock.advance(1000);
      const nextDay = await generate(
        app.url,
        account.apiKey,
        { title: 'Day two', format: 'x' },
        {
          'idempotency-key': key,
        },
      );
      expect(nextDay.status).toBe(200);
      expect(nextDay.headers.get('idempotent-replayed')).toBeNull();
      expect(nextDay.body.generationId).not.toBe(first.body.generationId);
    } finally {
      await app.close();
    }
  });

  it('keys survive a restart of the process', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tf-idem-'));
    const key = randomUUID();
    const body = { title: 'Across a restart', format: 'blogpost' };
    const first = await startProcess(dataDir, ENV);
    let account: { accountId: string; apiKey: string };
    let generationId: string;
    try {
      account = await admin(first.url).createAccount('pro');
      const res = await generate(first.url, account.apiKey, body, { 'idempotency-key': key });
      expect(res.status).toBe(200);
      generationId = res.body.generationId;
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
    const second = await startProcess(dataDir, ENV);
    try {
      const replayed = await generate(second.url, account.apiKey, body, { 'idempotency-key': key });
      expect(replayed.status).toBe(200);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body.generationId).toBe(generationId);
      expect(await decode(replayed.body.image)).toMatchObject({ width: 1200, height: 630 });
      const conflict = await generate(
        second.url,
        account.apiKey,
        { ...body, title: 'Other' },
        {
          'idempotency-key': key,
        },
      );
      expect(conflict.status).toBe(422);
      const ledger = (await admin(second.url).ledger(account.accountId)).body as Array<{ kind: string }>;
      expect(ledger.filter((e) => e.kind === 'reserved')).toHaveLength(1);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
