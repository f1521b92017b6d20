import { Inject, Injectable } from '@nestjs/common';
import {
  costOf,
  dimensionsOf,
  ERROR_CODES,
  generationIdFor,
  isoSeconds,
  LIMITS,
  makeEvent,
  newId,
  PLAN_TERMS,
  TOPICS,
  type JobSpec,
  type Rejection,
  type StoredEvent,
  type EventPayloads,
} from '@thumbforge/contracts';
import {
  type GenerationResultDto,
  type JobAcceptedDto,
  type NormalizedGenerateRequest,
} from '@thumbforge/contracts/api';
import { needsSavedAssets, NO_SAVED_ASSETS, resolveJobAssets } from '@thumbforge/domain';
import { EVENT_LOG, type EventLog } from '@thumbforge/event-log';
import { checkWebhookUrl } from '@thumbforge/http-safety';
import { CONTENT_TYPES, parseImageDataUrl, renderPlaceholder } from '@thumbforge/imaging';
import { OBJECT_STORE, type Bucket, type ObjectStore } from '@thumbforge/object-store';
import { CLOCK, CONFIG, STEP_TIMEOUT_MS, type Clock, type Config } from '@thumbforge/platform';
import type { Principal } from '../auth/principal.js';
import { ApiException } from '../http/api-exception.js';
import { resultDto, resultImage } from '../jobs/job-result.js';
import { Replies } from '../messaging/replies.js';
import { GatewayReadModel } from '../read-model/gateway-read-model.js';
import { creditHeaders } from './credit-headers.js';
import type { GenerateCommand } from './generate.command.js';

export type GenerateOutcome =
  | { kind: 'completed'; body: GenerationResultDto; headers: Record<string, string> }
  | { kind: 'accepted'; body: JobAcceptedDto; headers: Record<string, string> };

interface UploadKeys {
  photo: string | null;
  logo: string | null;
}

/** Where a job's inline images live in the private bucket; the orphan sweep reads the job id back. */
export function uploadKeys(accountId: string, jobId: string, inline: InlineImages): UploadKeys {
  return {
    photo: inline.photo ? `uploads/${accountId}/${jobId}/photo` : null,
    logo: inline.logo ? `uploads/${accountId}/${jobId}/logo` : null,
  };
}

interface InlineImages {
  photo: { bytes: Buffer; mime: string } | null;
  logo: { bytes: Buffer; mime: string } | null;
}

/**
 * `POST /v1/generate` after authentication and rate limiting: the checks of DESIGN §4 steps 3 to 7.
 * Assets and credits are decided by their owning services through the log; the job is accepted when
 * billing has reserved its credits, and from then on it completes without the gateway.
 */
@Injectable()
export class GenerateUseCase {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(OBJECT_STORE) private readonly objects: ObjectStore,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly replies: Replies,
    private readonly readModel: GatewayReadModel,
  ) {}

  private readonly placeholdersStored = new Map<string, Promise<void>>();

  async execute({ principal, request, jobId: claimedJobId }: GenerateCommand): Promise<GenerateOutcome> {
    const inline = await this.validateInlineImages(request);
    if (request.webhookUrl) await this.validateWebhookTarget(request.webhookUrl);
    if (principal.kind === 'public-test') return this.placeholder(request, inline);

    this.checkPlanFeatures(principal.plan, request);
    const jobId = claimedJobId ?? this.newJobId();
    const uploads = uploadKeys(principal.accountId, jobId, inline);
    const assets = await this.resolveAssets(principal, jobId, request, uploads);
    const job: JobSpec = {
      jobId,
      generationId: generationIdFor(jobId),
      accountId: principal.accountId,
      title: request.title,
      category: request.category,
      model: request.model,
      outputFormat: request.outputFormat,
      usePhoto: request.usePhoto,
      useLogo: request.useLogo,
      customAssetsId: request.customAssetsId,
      cost: costOf(request),
      webhookUrl: request.webhookUrl,
      requestedAt: this.clock.now().toISOString(),
      ...assets,
    };
    // Written only now that the assets are accepted, and removed again if billing refuses the job;
    // a crash in between leaves them to the orphan sweep.
    const stored = await this.storeUploads(uploads, inline);
    return this.reserveAndRun(job, () => this.removeUploads(stored));
  }

  private newJobId(): string {
    const jobId = newId('job', this.clock.now().getTime());
    this.readModel.expectNewJob(jobId);
    return jobId;
  }

  private async storeUploads(uploads: UploadKeys, inline: InlineImages): Promise<string[]> {
    const stored: string[] = [];
    try {
      for (const name of ['photo', 'logo'] as const) {
        const key = uploads[name];
        const image = inline[name];
        if (!key || !image) continue;
        await this.objects.put('private', key, image.bytes, image.mime);
        stored.push(key);
      }
    } catch (error) {
      await this.removeUploads(stored);
      throw error;
    }
    return stored;
  }

  private async removeUploads(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.objects.delete('private', key).catch(() => undefined)));
  }

  private async validateInlineImages(request: NormalizedGenerateRequest): Promise<InlineImages> {
    const parse = async (dataUrl: string | null, field: string, maxBytes: number) => {
      if (dataUrl === null) return null;
      const parsed = await parseImageDataUrl(dataUrl, { field, maxBytes });
      if (!parsed.ok) throw new ApiException(400, parsed.code, parsed.message);
      return { bytes: parsed.bytes, mime: parsed.mime };
    };
    const inline = {
      photo: await parse(request.photoImage, 'photoImage', LIMITS.photoMaxBytes),
      logo: await parse(request.logoImage, 'logoImage', LIMITS.logoMaxBytes),
    };
    // An image the job will not use is still part of the request: garbage is refused, not ignored.
    for (const { field, dataUrl } of request.unusedImages) {
      await parse(dataUrl, field, field === 'logoImage' ? LIMITS.logoMaxBytes : LIMITS.photoMaxBytes);
    }
    return inline;
  }

  private async validateWebhookTarget(url: string): Promise<void> {
    const verdict = await checkWebhookUrl(url, { allowPrivate: this.config.webhookAllowPrivate });
    if (!verdict.ok) throw new ApiException(400, ERROR_CODES.UNSAFE_WEBHOOK_URL, verdict.reason);
  }

  private checkPlanFeatures(plan: keyof typeof PLAN_TERMS, request: NormalizedGenerateRequest): void {
    if (request.model === 'hd' && !PLAN_TERMS[plan].hd) {
      throw new ApiException(
        403,
        ERROR_CODES.UPGRADE_REQUIRED,
        'The hd model requires the Pro or Business plan',
      );
    }
    if (request.webhookUrl && !this.config.webhookPlans.includes(plan)) {
      throw new ApiException(
        403,
        ERROR_CODES.WEBHOOKS_NOT_IN_PLAN,
        `Webhooks are not available on the ${plan} plan`,
      );
    }
  }

  private async resolveAssets(
    principal: Extract<Principal, { kind: 'account' }>,
    jobId: string,
    request: NormalizedGenerateRequest,
    uploads: UploadKeys,
  ) {
    const payload: EventPayloads['asset.job-assets-requested'] = {
      jobId,
      accountId: principal.accountId,
      plan: principal.plan,
      requestedFormat: request.format,
      usePhoto: request.usePhoto,
      useLogo: request.useLogo,
      customAssetsId: request.customAssetsId,
      inlinePhotoKey: uploads.photo,
      inlineLogoKey: uploads.logo,
    };
    // Nothing saved is involved: the asset service's own rule gives the answer without a round trip.
    if (!needsSavedAssets(payload)) {
      const resolution = resolveJobAssets(payload, NO_SAVED_ASSETS);
      if (!resolution.ok) throw ApiException.from(resolution.reason);
      return resolution.assets;
    }
    const reply = this.replies.expect(
      jobId,
      ['asset.job-assets-resolved', 'asset.job-assets-rejected'],
      STEP_TIMEOUT_MS,
    );
    await this.log.append(TOPICS.assets, [
      makeEvent('asset.job-assets-requested', principal.accountId, payload, { correlationId: jobId }),
    ]);
    const event = await reply;
    if (event.type === 'asset.job-assets-rejected') {
      throw ApiException.from((event.payload as EventPayloads['asset.job-assets-rejected']).reason);
    }
    const { format, photoKey, logo, references } =
      event.payload as EventPayloads['asset.job-assets-resolved'];
    return { format, photoKey, logo, references };
  }

  private async reserveAndRun(job: JobSpec, onRefused: () => Promise<void>): Promise<GenerateOutcome> {
    const accountId = job.accountId!;
    const reservation = this.replies.expect(
      job.jobId,
      ['billing.credits-reserved', 'billing.credits-rejected'],
      STEP_TIMEOUT_MS,
    );
    // Registered before the command: a fast render must not finish before anyone listens.
    const rendered = job.webhookUrl
      ? null
      : this.replies.expect(job.jobId, ['render.succeeded', 'render.failed'], this.config.syncTimeoutMs);
    rendered?.catch(() => undefined);

    await this.log.append(TOPICS.billing, [
      makeEvent('billing.reservation-requested', accountId, { job }, { correlationId: job.jobId }),
    ]);
    // Without an answer the reservation may still happen: the uploads stay for the sweep to judge.
    const decision = await reservation;
    if (decision.type === 'billing.credits-rejected') await onRefused();
    await this.readModel.settle([decision]);
    const headers = creditHeaders((await this.readModel.account(accountId))?.ledger, this.clock.now());

    if (decision.type === 'billing.credits-rejected') {
      const { reason } = decision.payload as EventPayloads['billing.credits-rejected'];
      throw ApiException.from(reason, {
        ...headers,
        'Retry-After': this.secondsUntil(headers['X-RateLimit-Reset']),
      });
    }
    if (job.webhookUrl) {
      return {
        kind: 'accepted',
        body: { jobId: job.jobId, status: 'processing', webhookUrl: job.webhookUrl },
        headers,
      };
    }
    let outcome: StoredEvent;
    try {
      outcome = await rendered!;
    } catch {
      throw new ApiException(
        500,
        ERROR_CODES.GENERATION_FAILED,
        'Generation did not finish in time',
        headers,
      );
    }
    if (outcome.type === 'render.failed') {
      const { error } = outcome.payload as EventPayloads['render.failed'];
      throw new ApiException(500, ERROR_CODES.GENERATION_FAILED, `Generation failed: ${error}`, headers);
    }
    const result = outcome.payload as EventPayloads['render.succeeded'];
    return { kind: 'completed', body: await this.resultBody(result), headers };
  }

  private async resultBody(result: EventPayloads['render.succeeded']): Promise<GenerationResultDto> {
    const base64 = await resultImage(result, this.objects);
    if (!base64) throw new ApiException(500, ERROR_CODES.GENERATION_FAILED, 'Generated image is missing');
    return resultDto(result, base64);
  }

  private secondsUntil(iso: string | undefined): string {
    if (!iso) return '60';
    return String(Math.max(1, Math.ceil((Date.parse(iso) - this.clock.now().getTime()) / 1000)));
  }

  /** The public test key: full validation, no account, no credits, a static placeholder. */
  private async placeholder(
    request: NormalizedGenerateRequest,
    inline: InlineImages,
  ): Promise<GenerateOutcome> {
    const missing = this.placeholderRejection(request, inline);
    if (missing) throw ApiException.from(missing);
    const format = request.format!;
    const jobId = newId('job', this.clock.now().getTime());
    const generationId = generationIdFor(jobId);
    const image = await renderPlaceholder(format, request.model, request.outputFormat);
    const { width, height } = dimensionsOf(format, request.model);
    const variant = `${format}-${request.model}.${request.outputFormat}`;
    const publicKey = `users/public-test/placeholders/${variant}`;
    let imageUrl: string | null;
    try {
      await this.storeOnce('public', publicKey, image, CONTENT_TYPES[request.outputFormat]);
      imageUrl = this.objects.publicUrl(publicKey);
    } catch {
      imageUrl = null;
    }
    if (!request.webhookUrl) {
      return {
        kind: 'completed',
        body: {
          image: `data:${CONTENT_TYPES[request.outputFormat]};base64,${image.toString('base64')}`,
          format,
          outputFormat: request.outputFormat,
          generationId,
          imageUrl,
          dimensions: { width, height },
        },
        headers: {},
      };
    }
    const resultKey = `results/public-test/${variant}`;
    await this.storeOnce('private', resultKey, image, CONTENT_TYPES[request.outputFormat]);
    // accountId null: webhook-delivery signs with the public test key.
    await this.log.append(TOPICS.webhooks, [
      makeEvent(
        'webhook.delivery-requested',
        jobId,
        {
          jobId,
          accountId: null,
          url: request.webhookUrl,
          outcome: {
            event: 'generation.completed',
            generationId,
            format,
            outputFormat: request.outputFormat,
            width,
            height,
            resultKey,
            imageUrl,
          },
          timestamp: isoSeconds(this.clock.now()),
        },
        { correlationId: jobId },
      ),
    ]);
    return {
      kind: 'accepted',
      body: { jobId, status: 'processing', webhookUrl: request.webhookUrl },
      headers: {},
    };
  }

  /** The placeholders never change: each is written once per process, not once per request. */
  private storeOnce(bucket: Bucket, key: string, body: Buffer, mime: string): Promise<void> {
    let stored = this.placeholdersStored.get(`${bucket}/${key}`);
    if (!stored) {
      stored = this.objects.put(bucket, key, body, mime);
      this.placeholdersStored.set(`${bucket}/${key}`, stored);
      stored.catch(() => this.placeholdersStored.delete(`${bucket}/${key}`));
    }
    return stored;
  }

  private placeholderRejection(request: NormalizedGenerateRequest, inline: InlineImages): Rejection | null {
    if (request.customAssetsId)
      return { status: 404, code: ERROR_CODES.REFERENCE_SET_NOT_FOUND, error: 'customAssetsId not found' };
    if (request.usePhoto && !inline.photo) {
      return {
        status: 400,
        code: ERROR_CODES.PHOTO_REQUIRED,
        error: 'usePhoto is true but no saved photo or photoImage was provided',
      };
    }
    if (request.useLogo && !inline.logo) {
      return {
        status: 400,
        code: ERROR_CODES.LOGO_REQUIRED,
        error: 'useLogo is true but no saved logo or logoImage was provided',
      };
    }
    return null;
  }
}
