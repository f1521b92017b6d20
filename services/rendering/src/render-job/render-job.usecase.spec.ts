import { TOPICS, type JobSpec } from '@thumbforge/contracts';
import { createLogger } from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import sharp from 'sharp';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { jobSpec, logoImage, photoImage, solidImage } from '@thumbforge/design-engine/testing';
import { FakeObjectStore, RecordingLog } from '../../test/support/fakes.js';
import { Renderer } from '@thumbforge/design-engine';
import {
  GenerationModelError,
  LocalGenerationModel,
  type GenerationInputs,
  type GenerationModel,
} from '../model/index.js';
import { RenderOutcomes, type RenderOutcome } from '../render-outcomes/render-outcomes.projection.js';
import { RenderJobUseCase } from './render-job.usecase.js';

const NOW = new Date('2026-04-27T14:30:05Z');
const RESERVED = 'evt_reserved_1';
const IMAGE = Buffer.from('rendered image bytes');

class StubModel implements GenerationModel {
  readonly calls: Array<{ job: JobSpec; inputs: GenerationInputs }> = [];
  constructor(private readonly behaviour: (job: JobSpec) => Promise<Buffer> = async () => IMAGE) {}
  async generate(job: JobSpec, inputs: GenerationInputs) {
    this.calls.push({ job, inputs });
    return { image: await this.behaviour(job), width: 1280, height: 720, by: 'local' as const };
  }
}

/** A model whose render runs until its signal is aborted, and the signal it was given. */
function untilAborted(): { model: GenerationModel; signal: () => AbortSignal | undefined } {
  let seen: AbortSignal | undefined;
  const model: GenerationModel = {
    generate: (_job, _inputs, signal) =>
      new Promise((_, reject) => {
        seen = signal;
        signal?.addEventListener('abort', () => reject(signal.reason as Error));
      }),
  };
  return { model, signal: () => seen };
}

function setup(model: GenerationModel = new StubModel(), renderTimeoutMs = 60_000) {
  const log = new RecordingLog();
  const objects = new FakeObjectStore();
  const store = new MemoryProjectionStore();
  const outcomes = new RenderOutcomes(store);
  const useCase = new RenderJobUseCase(
    log,
    objects,
    { renderTimeoutMs },
    { now: () => NOW },
    createLogger({ logLevel: 'silent' }),
    outcomes,
    model,
  );
  return { log, objects, store, outcomes, useCase, model };
}

describe('RenderJobUseCase', () => {
  let job: JobSpec;
  beforeEach(() => {
    job = jobSpec({ webhookUrl: 'https://hooks.example.test/t' });
  });

  it('stores the image once, as the CDN copy, then appends render.succeeded', async () => {
    const { log, objects, useCase } = setup();
    const result = await useCase.execute({ job, reservationEventId: RESERVED });

    const publicKey = `users/${job.accountId}/generations/${job.generationId}.webp`;
    expect(result).toEqual({
      status: 'succeeded',
      resultKey: publicKey,
      imageUrl: `https://cdn.example.test/${publicKey}`,
    });
    expect([...objects.objects.keys()]).toEqual([`public/${publicKey}`]);
    expect(objects.objects.get(`public/${publicKey}`)).toEqual({ body: IMAGE, contentType: 'image/webp' });
    expect(log.appended).toHaveLength(1);
    expect(log.appended[0]).toMatchObject({
      topic: TOPICS.jobs,
      id: `evt_render_${job.jobId}`,
      type: 'render.succeeded',
      version: 1,
      aggregateId: job.jobId,
      correlationId: job.jobId,
      causationId: RESERVED,
      occurredAt: NOW.toISOString(),
      payload: {
        jobId: job.jobId,
        generationId: job.generationId,
        accountId: job.accountId,
        format: 'youtube',
        outputFormat: 'webp',
        width: 1280,
        height: 720,
        bytes: IMAGE.length,
        resultKey: publicKey,
        resultBucket: 'public',
        imageUrl: `https://cdn.example.test/${publicKey}`,
        webhookUrl: 'https://hooks.example.test/t',
      },
    });
  });

  it('uses the png extension and content type for png output', async () => {
    const { objects, useCase } = setup();
    await useCase.execute({ job: { ...job, outputFormat: 'png' }, reservationEventId: RESERVED });
    const publicKey = `public/users/${job.accountId}/generations/${job.generationId}.png`;
    expect(objects.objects.get(publicKey)?.contentType).toBe('image/png');
    objects.failing.add('public');
    await useCase.execute({
      job: { ...job, jobId: 'job_private', outputFormat: 'png' },
      reservationEventId: RESERVED,
    });
    expect(objects.objects.get('private/results/job_private.png')?.contentType).toBe('image/png');
  });

  it('records nothing more on a re-delivery of the same reservation', async () => {
    const { log, objects, useCase } = setup();
    await useCase.execute({ job, reservationEventId: RESERVED });
    const stored = new Map(objects.objects);
    const again = await useCase.execute({ job, reservationEventId: RESERVED });
    expect(again).toEqual({ status: 'already-rendered' });
    expect(log.appended).toHaveLength(1);
    expect(objects.objects).toEqual(stored);
  });

  it('recognises an outcome it only knows from the log (after a restart)', async () => {
    const first = setup();
    await first.useCase.execute({ job, reservationEventId: RESERVED });

    const restarted = setup();
    await restarted.outcomes.apply(first.log.appended[0]!);
    expect(await restarted.useCase.execute({ job, reservationEventId: RESERVED })).toEqual({
      status: 'already-rendered',
    });
    expect(restarted.log.appended).toHaveLength(0);
    expect(restarted.objects.objects.size).toBe(0);
  });

  it('starts the render before the outcome is known, and stops it once the job turns out rendered', async () => {
    const { model, signal } = untilAborted();
    const { log, objects, outcomes, useCase } = setup(model);
    let answer!: (outcome: RenderOutcome | undefined) => void;
    vi.spyOn(outcomes, 'get').mockReturnValue(new Promise((resolve) => (answer = resolve)));
    const pending = useCase.execute({ job, reservationEventId: RESERVED });
    await vi.waitFor(() => expect(signal()).toBeDefined());
    expect(signal()?.aborted).toBe(false);
    answer({ id: job.jobId, outcome: 'succeeded', eventId: `evt_render_${job.jobId}` });
    expect(await pending).toEqual({ status: 'already-rendered' });
    expect(signal()?.aborted).toBe(true);
    expect(log.appended).toHaveLength(0);
    expect(objects.objects.size).toBe(0);
  });

  it('fails the attempt, recording nothing, when the outcome cannot be looked up', async () => {
    const { log, objects, outcomes, useCase } = setup();
    vi.spyOn(outcomes, 'get').mockRejectedValue(new Error('store unreachable'));
    await expect(useCase.execute({ job, reservationEventId: RESERVED })).rejects.toThrow('store unreachable');
    expect(log.appended).toHaveLength(0);
    expect(objects.objects.size).toBe(0);
  });

  it('fails the job when rendering exceeds the timeout', async () => {
    const { log, objects, useCase } = setup(new StubModel(() => new Promise<Buffer>(() => undefined)), 25);
    const result = await useCase.execute({ job, reservationEventId: RESERVED });
    expect(result).toEqual({ status: 'failed', error: 'Generation timed out after 25 ms' });
    expect(objects.objects.size).toBe(0);
    expect(log.appended).toEqual([
      expect.objectContaining({
        id: `evt_render_${job.jobId}`,
        type: 'render.failed',
        aggregateId: job.jobId,
        correlationId: job.jobId,
        causationId: RESERVED,
        payload: {
          jobId: job.jobId,
          accountId: job.accountId,
          error: 'Generation timed out after 25 ms',
          webhookUrl: 'https://hooks.example.test/t',
        },
      }),
    ]);
  });

  it('aborts the render at the timeout, so the engine stops drawing it', async () => {
    const { model, signal } = untilAborted();
    const { log, objects, useCase } = setup(model, 25);
    const result = await useCase.execute({ job, reservationEventId: RESERVED });
    expect(result).toEqual({ status: 'failed', error: 'Generation timed out after 25 ms' });
    expect(signal()?.aborted).toBe(true);
    expect((signal()?.reason as Error).message).toBe('Generation timed out after 25 ms');
    expect(log.appended.map((e) => e.type)).toEqual(['render.failed']);
    expect(objects.objects.size).toBe(0);
  });

  it('leaves the signal alone when the render finishes in time', async () => {
    let seen: AbortSignal | undefined;
    const model: GenerationModel = {
      generate: async (_job, _inputs, signal) => {
        seen = signal;
        return { image: IMAGE, width: 1280, height: 720, by: 'local' };
      },
    };
    const { useCase } = setup(model);
    expect(await useCase.execute({ job, reservationEventId: RESERVED })).toMatchObject({
      status: 'succeeded',
    });
    expect(seen?.aborted).toBe(false);
  });

  it('ignores a render that finishes after its timeout', async () => {
    vi.useFakeTimers();
    try {
      let finish!: (image: Buffer) => void;
      const { log, objects, useCase } = setup(
        new StubModel(() => new Promise<Buffer>((r) => (finish = r))),
        1000,
      );
      const pending = useCase.execute({ job, reservationEventId: RESERVED });
      await vi.advanceTimersByTimeAsync(1000);
      expect(await pending).toMatchObject({ status: 'failed' });
      finish(IMAGE);
      await vi.advanceTimersByTimeAsync(10);
      expect(log.appended.map((e) => e.type)).toEqual(['render.failed']);
      expect(objects.objects.size).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails the job with a readable reason when the renderer throws', async () => {
    const { log, useCase } = setup(new StubModel(async () => Promise.reject(new Error('vips exploded'))));
    expect(await useCase.execute({ job, reservationEventId: RESERVED })).toEqual({
      status: 'failed',
      error: 'The image could not be rendered',
    });
    expect(log.appended[0]).toMatchObject({
      type: 'render.failed',
      payload: { error: 'The image could not be rendered' },
    });
  });

  it('fails the job with the message the model gives when the generation model gives up', async () => {
    const model = new StubModel(async () => {
      throw new GenerationModelError('The image model could not be reached');
    });
    const { log, useCase } = setup(model);
    expect(await useCase.execute({ job, reservationEventId: RESERVED })).toEqual({
      status: 'failed',
      error: 'The image model could not be reached',
    });
    expect(log.appended[0]).toMatchObject({
      type: 'render.failed',
      payload: { error: 'The image model could not be reached' },
    });
  });

  it('keeps the result in the private bucket, with a null imageUrl, when the CDN upload fails', async () => {
    const { log, objects, useCase } = setup();
    objects.failing.add('public');
    const result = await useCase.execute({ job, reservationEventId: RESERVED });
    expect(result).toEqual({ status: 'succeeded', resultKey: `results/${job.jobId}.webp`, imageUrl: null });
    expect(objects.objects.has(`private/results/${job.jobId}.webp`)).toBe(true);
    expect(log.appended[0]).toMatchObject({ type: 'render.succeeded', payload: { imageUrl: null } });
    // No resultBucket: the private bucket, as every reader of older events assumes.
    expect(log.appended[0]!.payload).not.toHaveProperty('resultBucket');
  });

  it('sends the image inside render.succeeded when storage is down, with a null imageUrl', async () => {
    const { log, objects, useCase } = setup();
    objects.failing.add('private');
    objects.failing.add('public');
    const result = await useCase.execute({ job, reservationEventId: RESERVED });
    expect(result).toEqual({ status: 'succeeded', resultKey: `results/${job.jobId}.webp`, imageUrl: null });
    expect(log.appended[0]).toMatchObject({
      type: 'render.succeeded',
      payload: { imageUrl: null, inlineImage: IMAGE.toString('base64') },
    });
  });

  it('keeps the image out of the event when storage works', async () => {
    const { log, useCase } = setup();
    await useCase.execute({ job, reservationEventId: RESERVED });
    expect(log.appended[0]!.payload).not.toHaveProperty('inlineImage');
  });

  it('fails the job when storage is down and the image is too large to send inline', async () => {
    const { log, objects, useCase } = setup(new StubModel(async () => Buffer.alloc(700 * 1024, 1)));
    objects.failing.add('private');
    objects.failing.add('public');
    const error = 'The generated image could not be stored';
    expect(await useCase.execute({ job, reservationEventId: RESERVED })).toEqual({ status: 'failed', error });
    expect(log.appended[0]).toMatchObject({ type: 'render.failed', payload: { error } });
  });

  it('loads the photo, logo and references named by the job from the private bucket', async () => {
    const model = new StubModel();
    const { objects, useCase } = setup(model);
    const [photo, logo, ref1, ref2] = [
      Buffer.from('p'),
      Buffer.from('l'),
      Buffer.from('r1'),
      Buffer.from('r2'),
    ];
    await objects.put('private', 'assets/acc/photo.png', photo, 'image/png');
    await objects.put('private', 'assets/acc/logo.png', logo, 'image/png');
    await objects.put('private', 'assets/acc/ref/1.png', ref1, 'image/png');
    await objects.put('private', 'assets/acc/ref/2.png', ref2, 'image/png');
    await useCase.execute({
      job: {
        ...job,
        usePhoto: true,
        useLogo: true,
        photoKey: 'assets/acc/photo.png',
        logo: { key: 'assets/acc/logo.png', position: 'top-left', size: 0.2, dropShadow: false },
        references: { setId: 'ref_1', imageKeys: ['assets/acc/ref/1.png', 'assets/acc/ref/2.png'] },
      },
      reservationEventId: RESERVED,
    });
    expect(model.calls[0]!.inputs).toEqual({ photo, logo, references: [ref1, ref2] });
  });

  it.each([
    ['photo', { photoKey: 'assets/missing.png' }],
    [
      'logo',
      { logo: { key: 'assets/missing.png', position: 'top-left' as const, size: 0.2, dropShadow: false } },
    ],
    ['reference', { references: { setId: 'ref_1', imageKeys: ['assets/missing.png'] } }],
  ])('fails the job when its %s image is missing', async (what, overrides) => {
    const model = new StubModel();
    const { log, useCase } = setup(model);
    const result = await useCase.execute({ job: { ...job, ...overrides }, reservationEventId: RESERVED });
    expect(result).toEqual({ status: 'failed', error: `The ${what} image could not be loaded` });
    expect(model.calls).toHaveLength(0);
    expect(log.appended[0]).toMatchObject({ type: 'render.failed' });
  });

  it('renders a real thumbnail end to end', async () => {
    const { objects, useCase } = setup(new LocalGenerationModel(new Renderer()));
    await objects.put('private', 'p.jpg', await photoImage(), 'image/jpeg');
    await objects.put('private', 'l.png', await logoImage(), 'image/png');
    await objects.put('private', 'r.png', await solidImage('#7c3aed'), 'image/png');
    const result = await useCase.execute({
      job: {
        ...job,
        format: 'instagram',
        outputFormat: 'png',
        photoKey: 'p.jpg',
        logo: { key: 'l.png', position: 'bottom-right', size: 0.2, dropShadow: true },
        references: { setId: 'ref_1', imageKeys: ['r.png'] },
      },
      reservationEventId: RESERVED,
    });
    expect(result.status).toBe('succeeded');
    const stored = objects.objects.get(`public/users/${job.accountId}/generations/${job.generationId}.png`)!;
    const meta = await sharp(stored.body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 1024]);
  });
});
