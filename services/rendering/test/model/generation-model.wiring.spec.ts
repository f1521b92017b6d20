import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  makeEvent,
  resultLocation,
  TOPICS,
  type EventPayloads,
  type JobSpec,
  type StoredEvent,
} from '@thumbforge/contracts';
import { FileEventLog } from '@thumbforge/event-log';
import { LocalObjectStore } from '@thumbforge/object-store';
import { createLogger, InfrastructureModule, type Config } from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Renderer } from '@thumbforge/design-engine';
import { RenderingModule } from '../../src/index.js';
import {
  createGenerationModel,
  GENERATION_MODEL,
  LocalGenerationModel,
  OpenAiGenerationModel,
  type GenerationModelConfig,
} from '../../src/model/index.js';
import { distance, jobSpec, pixels } from '@thumbforge/design-engine/testing';
import { ImagesApiServer } from '../support/images-api-server.js';

const logger = createLogger({ logLevel: 'silent' });

const openai = (url: string): GenerationModelConfig => ({
  generationModel: 'openai',
  imageModelUrl: url,
  imageModelApiKey: 'sk-test',
  imageModelName: 'gpt-image-1',
  imageModelTimeoutMs: 5000,
  imageModelFallback: 'local',
});

describe('createGenerationModel', () => {
  const local = new LocalGenerationModel(new Renderer());

  it('is the built-in engine unless the external model is chosen', () => {
    expect(
      createGenerationModel({ ...openai('http://m.test'), generationModel: 'local' }, local, logger),
    ).toBe(local);
    const external = createGenerationModel(openai('http://m.test'), local, logger);
    expect(external).toBeInstanceOf(OpenAiGenerationModel);
    (external as OpenAiGenerationModel).onModuleDestroy();
  });

  it('refuses the external model without an address', () => {
    expect(() => createGenerationModel({ ...openai('x'), imageModelUrl: null }, local, logger)).toThrow(
      'IMAGE_MODEL_URL is required when GENERATION_MODEL=openai',
    );
  });
});

describe('RenderingModule with GENERATION_MODEL=openai', () => {
  let dir: string;
  let server: ImagesApiServer;
  let app: INestApplicationContext | undefined;
  let log: FileEventLog;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rendering-model-'));
    server = await new ImagesApiServer('sk-test').start();
  });

  afterEach(async () => {
    await app?.close();
    await log.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('renders a reserved job with the external model', async () => {
    log = new FileEventLog({ dir: join(dir, 'log'), fsync: 'never', retryDelayMs: () => 5 });
    await log.open();
    const objects = new LocalObjectStore({ dir: join(dir, 'objects'), publicBaseUrl: 'http://cdn.test' });
    const moduleRef = await Test.createTestingModule({
      imports: [
        InfrastructureModule.forRoot({
          config: {
            renderTimeoutMs: 30_000,
            renderConcurrency: 2,
            renderCacheBytes: 96 << 20,
            ...openai(server.url),
          } as Config,
          log,
          projections: new MemoryProjectionStore(),
          objects,
          clock: { now: () => new Date('2026-04-27T14:30:00Z') },
          logger,
        }),
        RenderingModule,
      ],
    }).compile();
    app = await moduleRef.init();
    expect(app.get(GENERATION_MODEL)).toBeInstanceOf(OpenAiGenerationModel);

    const job: JobSpec = jobSpec({ jobId: 'job_X', generationId: 'gen_X' });
    await log.append(TOPICS.billing, [
      makeEvent(
        'billing.credits-reserved',
        job.accountId!,
        { accountId: job.accountId!, jobId: job.jobId, amount: job.cost, job },
        { id: 'evt_reserved_X', correlationId: job.jobId },
      ),
    ]);

    let outcome: StoredEvent | undefined;
    for (let i = 0; i < 400 && !outcome; i++) {
      for await (const event of log.read(TOPICS.jobs)) outcome = event;
      if (!outcome) await new Promise((r) => setTimeout(r, 25));
    }
    expect(outcome).toMatchObject({ type: 'render.succeeded', payload: { width: 1280, height: 720 } });
    expect(server.seen.map((r) => r.path)).toEqual(['/v1/images/generations']);
    const { bucket, key } = resultLocation(outcome!.payload as EventPayloads['render.succeeded']);
    const stored = await objects.get(bucket, key);
    expect(distance((await pixels(stored!.body)).at(640, 360), [0x20, 0x50, 0xe0])).toBeLessThan(20);
  });
});
