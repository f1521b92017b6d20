import { copyFileSync, cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import {
  decodeDocument,
  documentEntries,
  listedDocuments,
  PROJECTION_STORE,
  readSnapshot,
  writeSnapshot,
  type MemoryProjectionStore,
} from '@thumbforge/projection-store';
import { snapshotFile } from '../src/bootstrap.js';

/** What the embedded store adds to the memory store: snapshots while running. */
type SnapshottedStore = MemoryProjectionStore & { saveWhileRunning(): Promise<void> };
import { ADMIN_TOKEN, admin, eventually, generate, request, startApp, type TestApp } from './support/app.js';

/** Rate-limit slots are the limiter's scratch space, kept per second of requests, not a read model. */
const NOT_A_READ_MODEL = new Set(['gateway_rate_limit_slots']);
const MARKER = 'test_snapshot_marker';

/**
 * Every read model document and every projection's positions, decoded and in a stable order. A
 * collection only exists once something asked for it, so empty ones are left out.
 */
function contents(app: TestApp) {
  const snapshot = app.app.get<MemoryProjectionStore>(PROJECTION_STORE).snapshot();
  const collections = Object.fromEntries(
    [...snapshot.collections]
      .filter(([name, docs]) => !NOT_A_READ_MODEL.has(name) && docs.length > 0)
      .map(([name, docs]) => [
        name,
        Object.fromEntries(
          [...documentEntries(docs)].map(([id, bytes]) => [id, decodeDocument(bytes) as unknown]).sort(),
        ),
      ])
      .sort(),
  );
  return { collections, positions: Object.fromEntries([...snapshot.positions].sort()) };
}

const FENCED_PARTITION = /^thumbforge\.(billing|assets|webhooks):\d+$/;

/** The read models without the owner-epoch bookkeeping, and each projection's fenced positions apart. */
function withoutOwnStartMarkers({ collections, positions }: ReturnType<typeof contents>) {
  const split = (fenced: boolean) =>
    Object.fromEntries(
      Object.entries(positions as Record<string, Record<string, number>>).map(([projection, at]) => [
        projection,
        Object.fromEntries(Object.entries(at).filter(([key]) => FENCED_PARTITION.test(key) === fenced)),
      ]),
    );
  return {
    collections: Object.fromEntries(
      Object.entries(collections).filter(([name]) => !name.endsWith('_epochs')),
    ),
    positions: split(false),
    fencedPositions: split(true),
  };
}

/** Writes the snapshot in `from` to `to` with a marker document, which only a start from it holds. */
async function withMarker(from: string, to: string): Promise<void> {
  const snapshot = (await readSnapshot(from))!;
  snapshot.collections.set(MARKER, listedDocuments([['marker', serialize({ id: 'marker' })]]));
  await writeSnapshot(to, snapshot);
  snapshot.release?.();
}

/** The admin rebuild's report: each read model rebuilt from offset 0 and compared with the live one. */
async function rebuildReport(app: TestApp) {
  const rebuild = await request(`${app.url}/admin/v1/rebuild`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(rebuild.status).toBe(200);
  return JSON.parse(String(rebuild.body).trim().split('\n').at(-1)!).report;
}

async function ready(app: TestApp): Promise<void> {
  await eventually(async () => (await request(`${app.url}/health/ready`)).status === 200);
}

/** Sync jobs for `apiKey`, then waits until billing has settled every one (captures follow renders). */
async function renderJobs(
  app: TestApp,
  account: { accountId: string; apiKey: string },
  titles: string[],
  total = titles.length,
) {
  for (const title of titles) {
    const res = await generate(app.url, account.apiKey, { title, format: 'youtube' });
    expect(res.status).toBe(200);
  }
  await eventually(async () => {
    const credits = (await admin(app.url).account(account.accountId)).body.credits;
    return credits.reserved === 0 && credits.used === 10 * total;
  });
}

describe('projection snapshots (DESIGN §12 start-up)', () => {
  it('a restart from a snapshot plus the log after it equals a full replay, and a rebuild agrees', async () => {
    const first = await startApp({ RATE_LIMITS: 'pro=1000' });
    const { dataDir } = first;
    const file = snapshotFile(dataDir);
    const early = await admin(first.url).createAccount('pro');
    await renderJobs(first, early, ['Before the snapshot 1', 'Before the snapshot 2']);
    await first.close();
    expect(existsSync(file)).toBe(true);
    const atFirstStop = `${file}.first`;
    copyFileSync(file, atFirstStop);

    // More history after the snapshot: a new account, a rotated key, more jobs of the first account.
    const second = await startApp({ RATE_LIMITS: 'pro=1000' }, { dataDir });
    await ready(second);
    const late = await admin(second.url).createAccount('pro');
    expect((await admin(second.url).call('POST', `/accounts/${early.accountId}/api-keys`)).status).toBe(201);
    await renderJobs(second, late, ['After the snapshot 1']);
    await second.close();

    // The first snapshot again, with a marker document that only a start which loaded it can hold:
    // the next start loads it and replays everything after it.
    await withMarker(atFirstStop, file);
    const fromSnapshot = await startApp({ RATE_LIMITS: 'pro=1000' }, { dataDir });
    let resumed: ReturnType<typeof contents>;
    try {
      await ready(fromSnapshot);
      const { [MARKER]: marker, ...collections } = contents(fromSnapshot).collections;
      expect(marker).toEqual({ marker: { id: 'marker' } });
      resumed = { ...contents(fromSnapshot), collections };
      const report = await rebuildReport(fromSnapshot);
      expect(report.accounts).toMatchObject({ equal: true, count: 2 });
      expect(report.jobs).toMatchObject({ equal: true, count: 3 });
    } finally {
      await fromSnapshot.close();
    }

    rmSync(file);
    const replayed = await startApp({ RATE_LIMITS: 'pro=1000' }, { dataDir });
    try {
      await ready(replayed);
      const full = contents(replayed);
      expect(Object.keys(full.collections)).toEqual(
        expect.arrayContaining(['billing_accounts', 'gateway_accounts', 'gateway_jobs']),
      );
      // Every start fences the partitions its billing, asset and webhook-attempt owners take (DESIGN §3, issue 14's
      // owner epochs): one marker each, appended after the state compared above was taken. Past those
      // markers, the two starts hold the same read models at the same positions.
      const started = withoutOwnStartMarkers(full);
      expect(withoutOwnStartMarkers(resumed)).toEqual({
        ...started,
        fencedPositions: Object.fromEntries(
          Object.entries(started.fencedPositions).map(([projection, at]) => [
            projection,
            Object.fromEntries(Object.entries(at).map(([key, offset]) => [key, offset - 1])),
          ]),
        ),
      });
      // The tail was real: the late account exists only in events after the first snapshot.
      expect(full.collections.gateway_accounts).toHaveProperty(late.accountId);
    } finally {
      await replayed.close();
    }
  }, 120_000);

  it('a snapshot saved while running lets memory go, and a start after a crash resumes from it', async () => {
    const env = { RATE_LIMITS: 'pro=1000' };
    const running = await startApp(env);
    const { dataDir } = running;
    const crashImage = mkdtempSync(join(tmpdir(), 'tf-crash-'));
    let firstId: string;
    let secondId: string;
    try {
      const first = await admin(running.url).createAccount('pro');
      firstId = first.accountId;
      await renderJobs(running, first, ['Before the snapshot 1', 'Before the snapshot 2']);
      const store = running.app.get<SnapshottedStore>(PROJECTION_STORE);
      const resident = store.residentDocuments();
      await store.saveWhileRunning();
      // Only what was read since stays in memory; the rest is read from the file when asked for.
      expect(store.residentDocuments()).toBeLessThan(resident / 2);
      expect(existsSync(snapshotFile(dataDir))).toBe(true);

      // After the snapshot: more jobs of the first account, and a second account.
      await renderJobs(running, first, ['After the snapshot 1'], 3);
      const second = await admin(running.url).createAccount('pro');
      secondId = second.accountId;
      await renderJobs(running, second, ['After the snapshot 2']);
      // The process dies here: its data directory as it is, the snapshot taken while running in it.
      cpSync(dataDir, crashImage, { recursive: true });
    } finally {
      await running.close();
    }

    const file = snapshotFile(crashImage);
    await withMarker(file, `${file}.marked`);
    renameSync(`${file}.marked`, file);
    const restarted = await startApp(env, { dataDir: crashImage });
    try {
      await ready(restarted);
      // Started from the snapshot: it holds the marker.
      const { [MARKER]: marker } = contents(restarted).collections;
      expect(marker).toEqual({ marker: { id: 'marker' } });
      // The second account exists only in events after the snapshot: the log after it was replayed.
      expect((await admin(restarted.url).account(secondId)).body.credits).toMatchObject({ used: 10 });
      expect((await admin(restarted.url).account(firstId)).body.credits).toMatchObject({ used: 30 });
      const report = await rebuildReport(restarted);
      expect(report.accounts).toMatchObject({ equal: true, count: 2 });
      expect(report.jobs).toMatchObject({ equal: true, count: 4 });
    } finally {
      await restarted.close();
    }
  }, 120_000);
});
