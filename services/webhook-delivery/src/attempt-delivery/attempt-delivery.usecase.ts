import { Inject, Injectable } from '@nestjs/common';
import { makeEvent, TOPICS, type EnvelopeOptions, type EventEnvelope } from '@thumbforge/contracts';
import { EVENT_LOG, type EventLog } from '@thumbforge/event-log';
import { CLOCK, CONFIG, LOGGER, type Clock, type Config, type Logger } from '@thumbforge/platform';
import { countWebhookAttempt, withSpan } from '@thumbforge/telemetry';
import { DeliveryProjection, type DeliveryDoc } from '../deliveries/delivery-projection.js';
import { SigningKeys } from '../deliveries/signing-keys.js';
import { AttemptFence } from './attempt-fence.js';
import { ResultImages } from './result-images.js';
import { signBody, standardWebhookHeaders, webhookBody, webhookHeaders } from './webhook-body.js';
import { WebhookSender, type SendResult } from './webhook-sender.js';

export interface AttemptDeliveryCommand {
  jobId: string;
  /** The delivery's partition of TOPICS.webhooks: the attempt is decided under its owner epoch. */
  partition: number;
  /** 1-based; attempt 1 is the first delivery, the rest are retries. */
  attempt: number;
}

export type AttemptResult =
  | { kind: 'delivered' }
  | { kind: 'retry'; attempt: number; at: Date }
  | { kind: 'exhausted' }
  /** The delivery is unknown or finished. */
  | { kind: 'skipped' };

/**
 * Makes one attempt and records its result on the log before anything else happens, so a restart
 * resumes from the log: an attempt cut short by a crash is simply made again, with identical bytes.
 */
@Injectable()
export class AttemptDeliveryUseCase {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly deliveries: DeliveryProjection,
    private readonly keys: SigningKeys,
    private readonly sender: WebhookSender,
    private readonly fence: AttemptFence,
    private readonly images: ResultImages,
  ) {}

  /** One first attempt plus one per configured retry delay. */
  private get maxAttempts(): number {
    return 1 + this.config.webhookRetryDelaysMs.length;
  }

  /**
   * Decided under the owner epoch of the job's partition; a replica that does not own it skips (the
   * owner schedules the delivery from the projection).
   */
  async execute({ jobId, partition, attempt }: AttemptDeliveryCommand): Promise<AttemptResult> {
    let result: AttemptResult | undefined;
    const decided = await this.fence.decide({ id: jobId, partition }, async (fence) => {
      const next = await this.attempt(jobId, attempt, fence);
      // Run again after a new fence, an attempt the first run recorded is not made again: its result stands.
      if (next.kind !== 'skipped' || !result) result = next;
    });
    return decided && result ? result : { kind: 'skipped' };
  }

  private async attempt(jobId: string, attempt: number, fence: number): Promise<AttemptResult> {
    const delivery = await this.deliveries.get(jobId);
    if (!delivery || delivery.state !== 'pending') return { kind: 'skipped' };
    if (delivery.attempts >= attempt) {
      // Made already: scheduled from a view read before its result was folded (a previous owner's, or
      // this replica's before a restart). The delivery's own next attempt is the one still to come.
      const due = delivery.nextAttemptAt ? new Date(delivery.nextAttemptAt) : this.clock.now();
      return { kind: 'retry', attempt: delivery.attempts + 1, at: due };
    }
    if (attempt > this.maxAttempts) {
      // The last failure was recorded but the process stopped before closing the delivery.
      await this.record(fence, [
        makeEvent(
          'webhook.exhausted',
          jobId,
          { jobId, attempts: delivery.attempts, lastError: delivery.lastError ?? 'delivery failed' },
          this.causedBy(delivery),
        ),
      ]);
      return { kind: 'exhausted' };
    }

    const result = await this.send(delivery, attempt);
    const now = this.clock.now();
    if (result.ok) {
      await this.record(fence, [
        makeEvent(
          'webhook.delivered',
          jobId,
          { jobId, attempt, status: result.status },
          this.causedBy(delivery),
        ),
      ]);
      this.logger.info({ jobId, attempt, status: result.status }, 'webhook delivered');
      countWebhookAttempt('success');
      return { kind: 'delivered' };
    }

    const failure = { jobId, attempt, status: result.status, error: result.error };
    if (attempt < this.maxAttempts) {
      const at = new Date(now.getTime() + this.config.webhookRetryDelaysMs[attempt - 1]!);
      await this.record(fence, [
        makeEvent(
          'webhook.attempt-failed',
          jobId,
          { ...failure, nextAttemptAt: at.toISOString() },
          this.causedBy(delivery),
        ),
      ]);
      this.logger.warn({ ...failure, nextAttemptAt: at.toISOString() }, 'webhook attempt failed');
      countWebhookAttempt('failure');
      return { kind: 'retry', attempt: attempt + 1, at };
    }
    await this.record(fence, [
      makeEvent(
        'webhook.attempt-failed',
        jobId,
        { ...failure, nextAttemptAt: null },
        this.causedBy(delivery),
      ),
      makeEvent(
        'webhook.exhausted',
        jobId,
        { jobId, attempts: attempt, lastError: result.error },
        this.causedBy(delivery),
      ),
    ]);
    this.logger.warn(failure, 'webhook delivery exhausted');
    countWebhookAttempt('exhausted');
    return { kind: 'exhausted' };
  }

  /** Appends an attempt's facts stamped with the epoch; resolves once the projection has folded them. */
  private async record(fence: number, facts: EventEnvelope[]): Promise<void> {
    const stored = await this.log.append(
      TOPICS.webhooks,
      facts.map((fact) => ({ ...fact, fence })),
    );
    await this.fence.reached(stored.at(-1)!);
  }

  private async send(delivery: DeliveryDoc, attempt: number): Promise<SendResult> {
    const now = this.clock.now();
    // The account's signing keys and the image are independent reads: made side by side.
    const [{ key, secrets }, image] = await Promise.all([
      this.keys.signing(delivery.accountId, now),
      this.images.read(delivery.id, delivery.outcome),
    ]);
    if (key === undefined) return { ok: false, status: null, error: 'no API key is known for the account' };
    if (image === null) {
      return { ok: false, status: null, error: 'the generated image is no longer available' };
    }
    const body = webhookBody(
      { jobId: delivery.id, outcome: delivery.outcome, timestamp: delivery.timestamp },
      image,
    );
    const bytes = JSON.stringify(body);
    const standard = standardWebhookHeaders(delivery.requestEventId, now, bytes, secrets);
    // The span describes the attempt; nothing of it goes into the bytes, which every attempt repeats.
    return withSpan(
      'POST',
      { kind: 'client', attributes: attemptAttributes(delivery, attempt) },
      async (span) => {
        const result = await this.sender.post(
          delivery.url,
          bytes,
          webhookHeaders(body, signBody(bytes, key), attempt, standard),
        );
        if (result.status !== null) span.set('http.response.status_code', result.status);
        if (!result.ok)
          span.fail(result.error, result.status === null ? 'request_failed' : String(result.status));
        return result;
      },
    );
  }

  private causedBy(delivery: DeliveryDoc): EnvelopeOptions {
    return { correlationId: delivery.id, causationId: delivery.requestEventId, occurredAt: this.clock.now() };
  }
}

/** The client span's attributes; the URL without credentials, query or fragment, which may hold secrets. */
function attemptAttributes(delivery: DeliveryDoc, attempt: number): Record<string, string | number> {
  const attributes: Record<string, string | number> = {
    'http.request.method': 'POST',
    'thumbforge.job.id': delivery.id,
    'thumbforge.webhook.attempt': attempt,
  };
  if (attempt > 1) attributes['http.request.resend_count'] = attempt - 1;
  if (URL.canParse(delivery.url)) {
    const url = new URL(delivery.url);
    attributes['url.full'] = `${url.protocol}//${url.host}${url.pathname}`;
    attributes['server.address'] = url.hostname;
    attributes['server.port'] = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  }
  return attributes;
}
