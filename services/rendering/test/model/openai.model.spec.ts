import type { JobSpec } from '@thumbforge/contracts';
import { createLogger } from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  GenerationModelError,
  ImagesApi,
  OpenAiGenerationModel,
  type GeneratedImage,
  type GenerationInputs,
  type GenerationModel,
} from '../../src/model/index.js';
import { RenderJobUseCase } from '../../src/render-job/render-job.usecase.js';
import { RenderOutcomes } from '../../src/render-outcomes/render-outcomes.projection.js';
import { FakeObjectStore, RecordingLog } from '../support/fakes.js';
import {
  distance,
  jobSpec,
  logoImage,
  photoImage,
  pixels,
  solidImage,
} from '@thumbforge/design-engine/testing';
import { ImagesApiServer } from '../support/images-api-server.js';

const MODEL_BLUE: [number, number, number] = [0x20, 0x50, 0xe0];
const MAGENTA: [number, number, number] = [255, 0, 255];
const logger = createLogger({ logLevel: 'silent' });

/** Stands in for the built-in engine: records its calls, answers a marker image. */
class LocalStub implements GenerationModel {
  readonly calls: JobSpec[] = [];
  async generate(job: JobSpec): Promise<GeneratedImage> {
    this.calls.push(job);
    return { image: Buffer.from('local render'), width: 1280, height: 720, by: 'local' };
  }
}

let server: ImagesApiServer;
let local: LocalStub;
const models: OpenAiGenerationModel[] = [];

function model(
  options: {
    fallback?: 'local' | 'none';
    timeoutMs?: number;
    name?: string;
    failuresToOpen?: number;
    resetTimeoutMs?: number;
  } = {},
): OpenAiGenerationModel {
  const name = options.name ?? 'gpt-image-1';
  const created = new OpenAiGenerationModel({
    api: new ImagesApi({
      baseUrl: server.url,
      apiKey: 'sk-test',
      model: name,
      timeoutMs: options.timeoutMs ?? 5000,
    }),
    modelName: name,
    fallback: options.fallback ?? 'local',
    local,
    logger,
    circuit: {
      volumeThreshold: options.failuresToOpen ?? 3,
      resetTimeoutMs: options.resetTimeoutMs ?? 60_000,
      windowMs: 60_000,
    },
  });
  models.push(created);
  return created;
}

async function until(probe: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeEach(async () => {
  server = await new ImagesApiServer('sk-test').start();
  local = new LocalStub();
});

afterEach(async () => {
  for (const m of models.splice(0)) m.onModuleDestroy();
  await server.stop();
});

describe('OpenAiGenerationModel against an OpenAI-compatible images API', () => {
  it('generates a title-only job and crops the answer to the exact output size', async () => {
    const job = jobSpec({ title: 'Ten Rust Tricks', category: 'gaming' });
    const result = await model().generate(job, {});

    expect(server.seen).toHaveLength(1);
    const [request] = server.seen;
    expect(request).toMatchObject({
      path: '/v1/images/generations',
      authorization: 'Bearer sk-test',
      contentType: 'application/json',
    });
    expect(request!.json).toMatchObject({ model: 'gpt-image-1', size: '1536x1024', n: 1 });
    // The GPT image models refuse response_format (they always answer base64).
    expect(request!.json).not.toHaveProperty('response_format');
    const prompt = String(request!.json!.prompt);
    expect(prompt).toContain('"Ten Rust Tricks"');
    expect(prompt).toContain('16:9');
    expect(prompt).toMatch(/neon/);

    expect(result.by).toBe('openai');
    const meta = await sharp(result.image).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1280, 720]);
    expect([result.width, result.height]).toEqual([1280, 720]);
    const px = await pixels(result.image);
    expect(distance(px.at(640, 360), MODEL_BLUE)).toBeLessThan(20);
    expect(local.calls).toHaveLength(0);
  });

  it('asks the DALL-E models for base64 and for their own wide size', async () => {
    await model({ name: 'dall-e-3' }).generate(jobSpec({ outputFormat: 'png' }), {});
    expect(server.seen[0]!.json).toMatchObject({
      model: 'dall-e-3',
      size: '1792x1024',
      response_format: 'b64_json',
    });
  });

  it('sends the photo and references as image[] parts of an edit, never the logo, and overlays the logo after', async () => {
    const [photo, logo, ref1, ref2] = await Promise.all([
      photoImage(),
      logoImage(),
      solidImage('#ffcc00'),
      solidImage('#00aa66'),
    ]);
    server.behaviour = { kind: 'image', width: 1024, height: 1024, colour: '#2050e0' };
    const job = jobSpec({
      format: 'instagram',
      outputFormat: 'png',
      usePhoto: true,
      useLogo: true,
      photoKey: 'p.jpg',
      logo: { key: 'l.png', position: 'bottom-right', size: 0.2, dropShadow: false },
      references: { setId: 'ref_1', imageKeys: ['r1.png', 'r2.png'] },
    });
    const inputs: GenerationInputs = { photo, logo, references: [ref1, ref2] };
    const result = await model().generate(job, inputs);

    expect(server.seen).toHaveLength(1);
    const request = server.seen[0]!;
    expect(request.path).toBe('/v1/images/edits');
    expect(request.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(request.fields).toMatchObject({ model: 'gpt-image-1', size: '1024x1024', n: '1' });
    expect(request.fields).not.toHaveProperty('response_format');
    expect(request.images!.map((i) => i.type)).toEqual(['image/jpeg', 'image/png', 'image/png']);
    expect(request.images!.map((i) => i.data)).toEqual([photo, ref1, ref2]);
    expect(request.images!.some((i) => i.data.equals(logo))).toBe(false);
    const prompt = request.fields!.prompt!;
    expect(prompt).toContain('80 to 100 percent fidelity');
    expect(prompt).toContain('The first input image is the creator');
    expect(prompt).toContain('Leave the bottom right corner free');
    expect(prompt).toMatch(/Do not draw any logo/);

    const meta = await sharp(result.image).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 1024]);
    const px = await pixels(result.image);
    let magentaBottomRight = 0;
    let magentaElsewhere = 0;
    for (let y = 0; y < 1024; y += 8) {
      for (let x = 0; x < 1024; x += 8) {
        if (distance(px.at(x, y), MAGENTA) > 40) continue;
        if (x > 700 && y > 800) magentaBottomRight++;
        else magentaElsewhere++;
      }
    }
    expect(magentaBottomRight).toBeGreaterThan(100);
    expect(magentaElsewhere).toBe(0);
    expect(distance(px.at(300, 300), MODEL_BLUE)).toBeLessThan(20);
  });

  it('counts a call that outlasts the timeout as a failure of the circuit', async () => {
    server.behaviour = { kind: 'hang' };
    const m = model({ timeoutMs: 100, fallback: 'none' });
    const error = await m.generate(jobSpec(), {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GenerationModelError);
    expect((error as Error).message).toBe('The image model gave no answer within 100 ms');
    expect(m.failures).toBe(1);
    expect(m.circuit).toBe('closed');
  });

  it('opens the circuit after repeated failures and then renders locally without calling the API', async () => {
    server.behaviour = { kind: 'status', status: 500, message: 'The server had an error' };
    const m = model({ failuresToOpen: 3 });
    for (let i = 0; i < 3; i++) expect((await m.generate(jobSpec(), {})).by).toBe('local-fallback');
    expect(server.seen).toHaveLength(3);
    expect(m.circuit).toBe('open');

    server.behaviour = { kind: 'image', width: 1536, height: 1024, colour: '#2050e0' };
    const result = await m.generate(jobSpec(), {});
    expect(result).toMatchObject({ by: 'local-fallback', image: Buffer.from('local render') });
    expect(server.seen).toHaveLength(3);
    expect(local.calls).toHaveLength(4);
  });

  it('does not count a refused request against the health of the API', async () => {
    server.behaviour = {
      kind: 'status',
      status: 400,
      message: 'Your request was rejected by the safety system.',
    };
    const m = model({ failuresToOpen: 2 });
    for (let i = 0; i < 4; i++) expect((await m.generate(jobSpec(), {})).by).toBe('local-fallback');
    expect(server.seen).toHaveLength(4);
    expect(m.circuit).toBe('closed');
    expect(m.failures).toBe(0);
  });

  it('treats an answer that is not an image as a failure', async () => {
    server.behaviour = { kind: 'garbage' };
    const m = model({ fallback: 'none' });
    await expect(m.generate(jobSpec(), {})).rejects.toThrow(
      'The image model answered without a usable image',
    );
    expect(m.failures).toBe(1);
  });

  it('recovers through half-open: one trial call, and the circuit closes when it succeeds', async () => {
    server.behaviour = { kind: 'status', status: 503, message: 'overloaded' };
    const m = model({ failuresToOpen: 1, resetTimeoutMs: 50 });
    expect((await m.generate(jobSpec(), {})).by).toBe('local-fallback');
    expect(m.circuit).toBe('open');

    // A failed trial opens it again.
    await until(() => m.circuit === 'half-open', 'the circuit to half-open');
    expect((await m.generate(jobSpec(), {})).by).toBe('local-fallback');
    expect(server.seen).toHaveLength(2);
    expect(m.circuit).toBe('open');

    server.behaviour = { kind: 'image', width: 1536, height: 1024, colour: '#2050e0' };
    await until(() => m.circuit === 'half-open', 'the circuit to half-open again');
    expect((await m.generate(jobSpec(), {})).by).toBe('openai');
    expect(server.seen).toHaveLength(3);
    expect(m.circuit).toBe('closed');
  });
});

describe('RenderJobUseCase with the external model and no fallback', () => {
  function setup(m: GenerationModel) {
    const log = new RecordingLog();
    const objects = new FakeObjectStore();
    const useCase = new RenderJobUseCase(
      log,
      objects,
      { renderTimeoutMs: 10_000 },
      { now: () => new Date('2026-04-27T14:30:05Z') },
      logger,
      new RenderOutcomes(new MemoryProjectionStore()),
      m,
    );
    return { log, objects, useCase };
  }

  it('records render.failed with a clear message, then says the model is unavailable once the circuit opens', async () => {
    server.behaviour = { kind: 'status', status: 500, message: 'The server had an error' };
    const { log, useCase } = setup(model({ fallback: 'none', failuresToOpen: 1 }));

    const first = await useCase.execute({ job: jobSpec({ jobId: 'job_1' }), reservationEventId: 'evt_r1' });
    expect(first).toEqual({ status: 'failed', error: 'The image model failed (HTTP 500)' });
    const second = await useCase.execute({ job: jobSpec({ jobId: 'job_2' }), reservationEventId: 'evt_r2' });
    const unavailable = 'The image model is unavailable after repeated failures; try again later';
    expect(second).toEqual({ status: 'failed', error: unavailable });

    expect(server.seen).toHaveLength(1);
    expect(local.calls).toHaveLength(0);
    expect(log.appended.map((e) => [e.type, (e.payload as { error: string }).error])).toEqual([
      ['render.failed', 'The image model failed (HTTP 500)'],
      ['render.failed', unavailable],
    ]);
  });

  it('stores the external image, logo included, and records render.succeeded', async () => {
    const { log, objects, useCase } = setup(model({ fallback: 'none' }));
    await objects.put('private', 'l.png', await logoImage(), 'image/png');
    const job = jobSpec({ logo: { key: 'l.png', position: 'top-left', size: 0.15, dropShadow: true } });
    expect((await useCase.execute({ job, reservationEventId: 'evt_r' })).status).toBe('succeeded');
    expect(log.appended[0]).toMatchObject({
      type: 'render.succeeded',
      payload: { width: 1280, height: 720 },
    });
    const stored = objects.objects.get(`public/users/${job.accountId}/generations/${job.generationId}.webp`)!;
    const px = await pixels(stored.body);
    expect(distance(px.at(1000, 500), MODEL_BLUE)).toBeLessThan(20);
    expect(server.seen[0]!.path).toBe('/v1/images/generations');
  });
});
