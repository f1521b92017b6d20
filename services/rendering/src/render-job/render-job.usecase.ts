import { Inject, Injectable } from '@nestjs/common';
import { makeEvent, TOPICS, type JobSpec, type ResultBucket } from '@thumbforge/contracts';
import { EVENT_LOG, type EventLog } from '@thumbforge/event-log';
import { CONTENT_TYPES, extensionOf } from '@thumbforge/imaging';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';
import { CLOCK, CONFIG, LOGGER, type Clock, type Config, type Logger } from '@thumbforge/platform';
import { countGeneration, recordRenderDuration, withSpan } from '@thumbforge/telemetry';
import {
  GENERATION_MODEL,
  GenerationModelError,
  type GeneratedImage,
  type GenerationInputs,
  type GenerationModel,
} from '../model/index.js';
import { RenderOutcomes } from '../render-outcomes/render-outcomes.projection.js';

export interface RenderJobCommand {
  job: JobSpec;
  /** Id of the `billing.credits-reserved` event that asked for this render. */
  reservationEventId: string;
}

export type RenderJobResult =
  | { status: 'already-rendered' }
  | { status: 'succeeded'; resultKey: string; imageUrl: string | null }
  | { status: 'failed'; error: string };

/** The id of a job's render outcome: a re-derived outcome is recognisable as the same event. */
export function renderEventId(jobId: string): string {
  return `evt_render_${jobId}`;
}

export function resultKeyOf(job: Pick<JobSpec, 'jobId' | 'outputFormat'>): string {
  return `results/${job.jobId}.${extensionOf(job.outputFormat)}`;
}

export function publicKeyOf(job: Pick<JobSpec, 'accountId' | 'generationId' | 'outputFormat'>): string {
  return `users/${job.accountId}/generations/${job.generationId}.${extensionOf(job.outputFormat)}`;
}

/**
 * The largest image sent inside `render.succeeded` when neither bucket can keep it: base64
 * makes it a third larger, and the event must stay under Kafka's default 1 MB message limit.
 */
const MAX_INLINE_IMAGE_BYTES = 600 * 1024;

type StoredResult =
  | {
      ok: true;
      resultKey: string;
      resultBucket: ResultBucket;
      imageUrl: string | null;
      inlineImage?: string;
    }
  | { ok: false; error: GenerationError };

/** A failure whose message is written for the user as it is (it ends up in `generation.failed`). */
class GenerationError extends Error {}

/**
 * Renders one reserved job: loads its images from the private bucket, has the generation model draw it
 * within `renderTimeoutMs`, publishes the result to the CDN bucket (or, when that fails, keeps it in the
 * private one), then records `render.succeeded` or `render.failed` on TOPICS.jobs. Idempotent per job:
 * a job that already has an outcome is left alone.
 */
@Injectable()
export class RenderJobUseCase {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(OBJECT_STORE) private readonly objects: ObjectStore,
    @Inject(CONFIG) private readonly config: Pick<Config, 'renderTimeoutMs'>,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly outcomes: RenderOutcomes,
    @Inject(GENERATION_MODEL) private readonly model: GenerationModel,
  ) {}

  async execute({ job, reservationEventId }: RenderJobCommand): Promise<RenderJobResult> {
    // Asked while the job renders rather than before: a re-delivered reservation (after a crash or a
    // rebalance) then costs a render that is stopped and dropped, and every other one a database
    // round trip less before its render starts.
    // A failed read fails the attempt below, once the render has stopped.
    const known = this.outcomes.get(job.jobId);
    const superseded = known.then(
      (outcome) => outcome !== undefined,
      () => false,
    );

    let rendered: GeneratedImage;
    const started = performance.now();
    const measured = { format: job.format, model: job.model };
    try {
      rendered = await withSpan(
        'render',
        { attributes: { 'thumbforge.job.id': job.jobId, 'thumbforge.format': job.format } },
        () => this.withTimeout((signal) => this.generate(job, signal), superseded),
      );
    } catch (error) {
      if (await known) return { status: 'already-rendered' };
      recordRenderDuration({ ...measured, status: 'failed' }, (performance.now() - started) / 1000);
      return this.fail(job, reservationEventId, error);
    }
    if (await known) return { status: 'already-rendered' };
    recordRenderDuration({ ...measured, status: 'succeeded' }, (performance.now() - started) / 1000);

    const stored = await this.store(job, rendered.image);
    if (!stored.ok) return this.fail(job, reservationEventId, stored.error);
    const { resultKey, resultBucket, imageUrl, inlineImage } = stored;

    const event = makeEvent(
      'render.succeeded',
      job.jobId,
      {
        jobId: job.jobId,
        generationId: job.generationId,
        accountId: job.accountId,
        format: job.format,
        outputFormat: job.outputFormat,
        width: rendered.width,
        height: rendered.height,
        bytes: rendered.image.length,
        resultKey,
        ...(resultBucket === 'public' ? { resultBucket } : {}),
        imageUrl,
        webhookUrl: job.webhookUrl,
        ...(inlineImage ? { inlineImage } : {}),
      },
      this.envelopeOptions(job, reservationEventId),
    );
    await this.outcomes.record(
      { id: job.jobId, outcome: 'succeeded', eventId: event.id },
      this.log.append(TOPICS.jobs, [event]),
    );
    countGeneration({ format: job.format, model: job.model, status: 'succeeded' });
    this.logger.info(
      { jobId: job.jobId, bytes: rendered.image.length, imageUrl, by: rendered.by },
      'render succeeded',
    );
    return { status: 'succeeded', resultKey, imageUrl };
  }

  /**
   * Keeps the result once: the CDN copy is the result when the upload to the delivery network works;
   * otherwise the private bucket keeps it, and when storage is down altogether a small enough image
   * rides in the event itself (base64), so the caller still gets it.
   */
  private async store(job: JobSpec, image: Buffer): Promise<StoredResult> {
    const imageUrl = await this.publish(job, image);
    if (imageUrl) return { ok: true, resultKey: publicKeyOf(job), resultBucket: 'public', imageUrl };
    const resultKey = resultKeyOf(job);
    try {
      await this.objects.put('private', resultKey, image, CONTENT_TYPES[job.outputFormat]);
      return { ok: true, resultKey, resultBucket: 'private', imageUrl: null };
    } catch (error) {
      if (image.length > MAX_INLINE_IMAGE_BYTES) {
        this.logger.error({ jobId: job.jobId, err: error }, 'storing the render result failed');
        return { ok: false, error: new GenerationError('The generated image could not be stored') };
      }
      this.logger.warn({ jobId: job.jobId, err: error }, 'storing the render result failed; sent inline');
      const inlineImage = image.toString('base64');
      return { ok: true, resultKey, resultBucket: 'private', imageUrl: null, inlineImage };
    }
  }

  private async generate(job: JobSpec, signal: AbortSignal): Promise<GeneratedImage> {
    const inputs: GenerationInputs = {};
    if (job.photoKey) inputs.photo = await this.load(job.photoKey, 'photo');
    if (job.logo) inputs.logo = await this.load(job.logo.key, 'logo');
    if (job.references?.imageKeys.length) {
      inputs.references = await Promise.all(
        job.references.imageKeys.map((key) => this.load(key, 'reference')),
      );
    }
    try {
      return await this.model.generate(job, inputs, signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof GenerationModelError) throw new GenerationError(error.message);
      this.logger.error({ jobId: job.jobId, err: error }, 'rendering failed');
      throw new GenerationError('The image could not be rendered');
    }
  }

  private async load(key: string, what: 'photo' | 'logo' | 'reference'): Promise<Buffer> {
    const object = await this.objects.get('private', key).catch((error: unknown) => {
      this.logger.error({ key, err: error }, 'loading an input image failed');
      return undefined;
    });
    if (!object) throw new GenerationError(`The ${what} image could not be loaded`);
    return object.body;
  }

  /** The CDN copy; its failure is reported as a null imageUrl, never as a failed generation. */
  private async publish(job: JobSpec, image: Buffer): Promise<string | null> {
    if (job.accountId === null) return null;
    const key = publicKeyOf(job);
    try {
      await this.objects.put('public', key, image, CONTENT_TYPES[job.outputFormat]);
      return this.objects.publicUrl(key);
    } catch (error) {
      this.logger.warn({ jobId: job.jobId, err: error }, 'publishing to the CDN bucket failed');
      return null;
    }
  }

  /**
   * The work gets a signal aborted at the timeout, or once `superseded` says the job has an outcome
   * already: the engine stops at its next checkpoint and drops what it drew, so a render nobody needs
   * frees its memory instead of running on.
   */
  private withTimeout<T>(
    start: (signal: AbortSignal) => Promise<T>,
    superseded: Promise<boolean>,
  ): Promise<T> {
    const ms = this.config.renderTimeoutMs;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new GenerationError(`Generation timed out after ${ms} ms`);
        controller.abort(error);
        reject(error);
      }, ms);
    });
    void superseded.then((yes) => {
      if (yes) controller.abort(new GenerationError('The job has been rendered already'));
    });
    const work = start(controller.signal);
    // Once timed out, the work's late result or abort is dropped.
    work.catch(() => undefined);
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  private async fail(job: JobSpec, reservationEventId: string, error: unknown): Promise<RenderJobResult> {
    const message = error instanceof GenerationError ? error.message : 'The image could not be generated';
    if (!(error instanceof GenerationError))
      this.logger.error({ jobId: job.jobId, err: error }, 'generation failed');
    const event = makeEvent(
      'render.failed',
      job.jobId,
      { jobId: job.jobId, accountId: job.accountId, error: message, webhookUrl: job.webhookUrl },
      this.envelopeOptions(job, reservationEventId),
    );
    await this.outcomes.record(
      { id: job.jobId, outcome: 'failed', eventId: event.id },
      this.log.append(TOPICS.jobs, [event]),
    );
    countGeneration({ format: job.format, model: job.model, status: 'failed' });
    this.logger.info({ jobId: job.jobId, error: message }, 'render failed');
    return { status: 'failed', error: message };
  }

  private envelopeOptions(job: JobSpec, reservationEventId: string) {
    return {
      id: renderEventId(job.jobId),
      correlationId: job.jobId,
      causationId: reservationEventId,
      occurredAt: this.clock.now(),
    };
  }
}
