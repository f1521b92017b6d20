import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStore } from '@thumbforge/object-store';
import { createLogger, loadConfig, type Clock } from '@thumbforge/platform';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayReadModel } from '../read-model/gateway-read-model.js';
import { ORPHAN_GRACE_MS, SweepOrphanUploadsUseCase } from './sweep-orphan-uploads.usecase.js';

let dir: string;
let objects: LocalObjectStore;
const now = new Date('2030-01-01T12:00:00Z');
const clock: Clock = { now: () => now };
const logger = createLogger(loadConfig({ LOG_LEVEL: 'silent', KEY_ENCRYPTION_SECRET: 'b'.repeat(64) }));
const acceptedJobs = new Set(['job_accepted']);
const readModel = {
  job: async (jobId: string) => (acceptedJobs.has(jobId) ? { id: jobId } : undefined),
} as unknown as GatewayReadModel;

async function upload(key: string, ageMs: number): Promise<void> {
  await objects.put('private', key, Buffer.from('image bytes'), 'image/png');
  const at = new Date(now.getTime() - ageMs);
  await utimes(join(dir, 'private', ...key.split('/')), at, at);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tf-sweep-'));
  objects = new LocalObjectStore({ dir, publicBaseUrl: 'http://127.0.0.1/cdn' });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('SweepOrphanUploadsUseCase on the local object store', () => {
  it('removes old uploads of jobs never accepted and keeps everything else', async () => {
    const old = ORPHAN_GRACE_MS + 60_000;
    await upload('uploads/acc_1/job_refused/photo', old);
    await upload('uploads/acc_1/job_refused/logo', old);
    await upload('uploads/acc_1/job_accepted/photo', old);
    await upload('uploads/acc_2/job_deciding/photo', 30_000);
    await objects.put('private', 'assets/acc_1/photo', Buffer.from('saved'), 'image/png');

    const sweep = new SweepOrphanUploadsUseCase(objects, clock, logger, readModel);
    expect((await sweep.execute()).sort()).toEqual([
      'uploads/acc_1/job_refused/logo',
      'uploads/acc_1/job_refused/photo',
    ]);

    expect(await objects.get('private', 'uploads/acc_1/job_refused/photo')).toBeUndefined();
    expect((await objects.list('private', 'uploads/')).map((o) => o.key).sort()).toEqual([
      'uploads/acc_1/job_accepted/photo',
      'uploads/acc_2/job_deciding/photo',
    ]);
    expect(await objects.get('private', 'assets/acc_1/photo')).toBeDefined();
    expect(await sweep.execute()).toEqual([]);
  });

  it('has nothing to do when no upload was ever stored', async () => {
    const sweep = new SweepOrphanUploadsUseCase(objects, clock, logger, readModel);
    expect(await sweep.execute()).toEqual([]);
  });
});
