import type { OnModuleDestroy } from '@nestjs/common';
import { dimensionsOf, LIMITS, type JobSpec } from '@thumbforge/contracts';
import { withEncoder } from '@thumbforge/imaging';
import type { Logger } from '@thumbforge/platform';
import sharp from 'sharp';
import { createBreaker, isBreakerOpen, type Breaker, type BreakerOptions } from '@thumbforge/resilience';
import { ImagesApiError, type ImageRequest, type ImagesApi } from './images-api.js';
import { paintLogo } from '@thumbforge/design-engine';
import {
  GenerationModelError,
  type GeneratedImage,
  type GenerationInputs,
  type GenerationModel,
} from './port.js';
import { buildPrompt, requestSize } from './prompt.js';

export const DEFAULT_CIRCUIT: BreakerOptions = {
  volumeThreshold: 5,
  resetTimeoutMs: 30_000,
  windowMs: 60_000,
};

export interface OpenAiModelOptions {
  api: ImagesApi;
  /** Model name sent to the API; it also decides which sizes are asked for. */
  modelName: string;
  /** `local`: draw with the built-in engine when the API fails or its circuit is open. */
  fallback: 'local' | 'none';
  local: GenerationModel;
  logger: Logger;
  circuit?: BreakerOptions;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * An external image model behind an OpenAI-compatible images API. The photo and the references go
 * to the model; the logo never does: the answer is cropped to the exact output size and the logo is
 * composited afterwards by the engine's own logo step. Calls run through a circuit breaker; while it
 * is open (and on any failure, when so configured) the built-in engine draws the job instead.
 */
export class OpenAiGenerationModel implements GenerationModel, OnModuleDestroy {
  private readonly breaker: Breaker<[ImageRequest], Buffer>;

  constructor(private readonly options: OpenAiModelOptions) {
    this.breaker = createBreaker(
      'image-model',
      (request: ImageRequest) => this.call(request),
      options.circuit ?? DEFAULT_CIRCUIT,
      isRefusal,
    );
    const { logger } = options;
    this.breaker.on('open', () => logger.warn('image model circuit opened: calls go to the fallback'));
    this.breaker.on('halfOpen', () => logger.info('image model circuit half-open: trying one call'));
    this.breaker.on('close', () => logger.info('image model circuit closed'));
  }

  get circuit(): CircuitState {
    if (this.breaker.halfOpen) return 'half-open';
    return this.breaker.opened ? 'open' : 'closed';
  }

  /** Calls the breaker counted as failures. */
  get failures(): number {
    return this.breaker.stats.failures;
  }

  async generate(job: JobSpec, inputs: GenerationInputs, signal?: AbortSignal): Promise<GeneratedImage> {
    const canvas = dimensionsOf(job.format, job.model);
    const references = inputs.references ?? [];
    const request: ImageRequest = {
      prompt: buildPrompt(job, {
        hasPhoto: inputs.photo !== undefined,
        referenceCount: references.length,
        hasLogo: inputs.logo !== undefined,
      }),
      size: requestSize(this.options.modelName, canvas.width, canvas.height),
      images: inputs.photo ? [inputs.photo, ...references] : references,
    };

    let drawn: Buffer;
    try {
      drawn = await this.breaker.fire(request);
    } catch (error) {
      return this.fallBack(job, inputs, error, signal);
    }

    const { data, info } = await sharp(drawn, { failOn: 'error', limitInputPixels: LIMITS.maxInputPixels })
      .resize(canvas.width, canvas.height, { fit: 'cover', position: 'centre' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const picture = { data, width: info.width, height: info.height };
    if (inputs.logo) await paintLogo(picture, job, inputs.logo);
    const encoded = await withEncoder(
      sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }),
      job.outputFormat,
    ).toBuffer();
    return { image: encoded, width: canvas.width, height: canvas.height, by: 'openai' };
  }

  onModuleDestroy(): void {
    this.breaker.shutdown();
  }

  /** One API call; an answer that is not a decodable image counts as a failure of the service. */
  private async call(request: ImageRequest): Promise<Buffer> {
    const image = await this.options.api.create(request);
    await sharp(image, { limitInputPixels: LIMITS.maxInputPixels })
      .metadata()
      .catch(() => {
        throw new ImagesApiError('images API answered an image that cannot be decoded', 'answer');
      });
    return image;
  }

  private async fallBack(
    job: JobSpec,
    inputs: GenerationInputs,
    error: unknown,
    signal: AbortSignal | undefined,
  ): Promise<GeneratedImage> {
    const { logger, fallback, local } = this.options;
    const reason = isBreakerOpen(error) ? 'circuit open' : (error as Error).message;
    if (fallback === 'local') {
      logger.warn({ jobId: job.jobId, reason }, 'image model unavailable: rendering with the local engine');
      const rendered = await local.generate(job, inputs, signal);
      return { ...rendered, by: 'local-fallback' };
    }
    logger.error({ jobId: job.jobId, reason }, 'image model failed');
    throw new GenerationModelError(userMessage(error));
  }
}

/** The model declined this particular request (its content, its size): the service itself is healthy. */
function isRefusal(error: unknown): boolean {
  return error instanceof ImagesApiError && (error.status === 400 || error.status === 422);
}

function userMessage(error: unknown): string {
  if (isBreakerOpen(error)) return 'The image model is unavailable after repeated failures; try again later';
  if (!(error instanceof ImagesApiError)) return 'The image model could not be used';
  switch (error.kind) {
    case 'timeout':
      return `The image model gave ${error.message}`;
    case 'status':
      return isRefusal(error)
        ? `The image model refused this request (HTTP ${error.status})`
        : `The image model failed (HTTP ${error.status})`;
    case 'network':
      return 'The image model could not be reached';
    case 'answer':
      return 'The image model answered without a usable image';
  }
}
