import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { makeEvent, TOPICS, type JobSpec, type StoredEvent } from '@thumbforge/contracts';
import { FileEventLog, type EventLog } from '@thumbforge/event-log';
import { LocalObjectStore } from '@thumbforge/object-store';
import { createLogger, InfrastructureModule, ReadinessRegistry, type Config } from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RenderingModule } from '../src/index.js';
import { jobSpec, photoImage } from '@thumbforge/design-engine/testing';

let dir: string;
let objects: LocalObjectStore;
const running: Array<{ app: INestApplicationContext; log: FileEventLog }> = [];

async function start(): Promise<{
  app: INestApplicationContext;
  log: EventLog;
  readiness: ReadinessRegistry;
}> {
  const log = new FileEventLog({ dir: join(dir, 'log'), fsync: 'never', retryDelayMs: () => 5 });
  await log.open();
  const moduleRef = await Test.createTestingModule({
    imports: [
      InfrastructureModule.forRoot({
        config: { renderTimeoutMs: 30_000, renderConcurrency: 2, renderCacheBytes: 96 << 20 } as Config,
        log,
        projections,
        objects,
        clock: { now: () => new Date('2026-04-27T14:30:00Z') },
        logger: createLogger({ logLevel: 'silent' }),
      }),
      RenderingModule,
    ],
  }).compile();
  const app = await moduleRef.init();
  running.push({ app, log });
  return { app, log, readiness: app.get(ReadinessRegistry) };
}

let projections: MemoryProjectionStore;

function reserved(job: JobSpec, id = `evt_reserved_${job.jobId}`) {
  return makeEvent(
    'billing.credits-reserved',
    job.accountId!,
    { accountId: job.accountId!, jobId: job.jobId, amount: job.cost, job },
    { id, correlationId: job.jobId },
  );
}

async function jobsTopic(log: EventLog): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of log.read(TOPICS.jobs)) events.push(event);
  return events;
}

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function outcomeOf(log: EventLog, jobId: string): Promise<StoredEvent> {
  return until(
    async () => (await jobsTopic(log)).find((e) => e.aggregateId === jobId),
    `the outcome of ${jobId}`,
  );
}

async function stop(): Promise<void> {
  for (const { app, log } of running.splice(0)) {
    await app.close();
    await log.close();
  }
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rendering-'));
  objects = new LocalObjectStore({ dir: join(dir, 'objects'), publicBaseUrl: 'http://localhost:3000/cdn' });
  projections = new MemoryProjectionStore();
});

afterEach(async () => {
  await stop();
  await rm(dir, { recursive: true, force: true });
});

describe('RenderingModule', () => {
  it('renders a reserved job into the CDN bucket alone and records render.succeeded', async () => {
    const { log, readiness } = await start();
    await objects.put('private', 'uploads/photo.jpg', await photoImage(), 'image/jpeg');
    const job = jobSpec({
      jobId: 'job_A',
      generationId: 'gen_A',
      photoKey: 'uploads/photo.jpg',
      usePhoto: true,
    });
    const [reservation] = await log.append(TOPICS.billing, [reserved(job)]);

    const outcome = await outcomeOf(log, 'job_A');
    expect(outcome).toMatchObject({
      type: 'render.succeeded',
      id: 'evt_render_job_A',
      causationId: reservation!.id,
      payload: {
        resultKey: `users/${job.accountId}/generations/gen_A.webp`,
        resultBucket: 'public',
        imageUrl: `http://localhost:3000/cdn/users/${job.accountId}/generations/gen_A.webp`,
      },
    });
    const stored = await objects.get('public', `users/${job.accountId}/generations/gen_A.webp`);
    expect((await sharp(stored!.body).metadata()).width).toBe(1280);
    expect(await objects.get('private', 'results/job_A.webp')).toBeUndefined();
    await until(async () => (readiness.snapshot().ready ? true : undefined), 'readiness');
  });

  it('renders a re-delivered reservation only once, also after a restart', async () => {
    const first = await start();
    const job = jobSpec({ jobId: 'job_B', generationId: 'gen_B' });
    await first.log.append(TOPICS.billing, [reserved(job)]);
    await outcomeOf(first.log, 'job_B');
    // The same reservation again, then a marker job on the same account (same partition, so after it).
    await first.log.append(TOPICS.billing, [
      reserved(job, 'evt_redelivered_1'),
      reserved(jobSpec({ jobId: 'job_C', generationId: 'gen_C' })),
    ]);
    await outcomeOf(first.log, 'job_C');
    await stop();

    // A new process: the outcome projection is rebuilt from the log before reservations are read.
    projections = new MemoryProjectionStore();
    const second = await start();
    await second.log.append(TOPICS.billing, [
      reserved(job, 'evt_redelivered_2'),
      reserved(jobSpec({ jobId: 'job_D', generationId: 'gen_D' })),
    ]);
    await outcomeOf(second.log, 'job_D');
    const outcomes = (await jobsTopic(second.log)).map((e) => e.aggregateId);
    expect(outcomes).toEqual(['job_B', 'job_C', 'job_D']);
  });

  it('ignores other billing events and reservations without an account', async () => {
    const { log } = await start();
    const anonymous = jobSpec({ jobId: 'job_anon', accountId: null });
    await log.append(TOPICS.billing, [
      makeEvent('billing.credits-captured', 'acc_x', { accountId: 'acc_x', jobId: 'job_x', amount: 10 }),
      makeEvent('billing.credits-reserved', 'acc_x', {
        accountId: 'acc_x',
        jobId: 'job_anon',
        amount: 0,
        job: anonymous,
      }),
      reserved(jobSpec({ jobId: 'job_E', generationId: 'gen_E', accountId: 'acc_x' })),
    ]);
    await outcomeOf(log, 'job_E');
    expect((await jobsTopic(log)).map((e) => e.aggregateId)).toEqual(['job_E']);
  });

  it("renders no reservation stamped with an epoch older than its partition's latest owner marker", async () => {
    const { log } = await start();
    const marker = () =>
      makeEvent('log.owner-fenced', `${TOPICS.billing}:0`, { writer: 'billing', partition: 0 });
    const stamped = (jobId: string, fence: number) => ({
      ...reserved(jobSpec({ jobId, generationId: `gen_${jobId}` })),
      fence,
    });
    // Offsets 0 and 2 are markers: the old owner's job_stale (epoch 0) lands after the new owner's marker.
    await log.append(TOPICS.billing, [marker(), stamped('job_old', 0), marker()], { partition: 0 });
    await log.append(TOPICS.billing, [stamped('job_stale', 0), stamped('job_new', 2)], { partition: 0 });
    // Jobs render concurrently; job_stale was dropped before job_new started (handled in log order).
    await outcomeOf(log, 'job_old');
    await outcomeOf(log, 'job_new');
    expect((await jobsTopic(log)).map((e) => e.aggregateId).sort()).toEqual(['job_new', 'job_old']);
  });
});
