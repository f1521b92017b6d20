import { Inject, Injectable } from '@nestjs/common';
import { resultLocation, type WebhookOutcome } from '@thumbforge/contracts';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';

/** Reads started early and not yet taken; past this the oldest is dropped (each holds an image). */
const MAX_EARLY_READS = 8;

type ResultImage = Buffer | null | undefined;

/**
 * The image a webhook body carries: undefined for a failed generation, null when the stored result is
 * gone. A delivery's first attempt can have its read started when the request arrives (`prefetch`),
 * so that it overlaps the wait for the delivery projection to fold the request instead of following
 * it. Results are never rewritten under their key, so an early read is as good as a late one.
 */
@Injectable()
export class ResultImages {
  private readonly early = new Map<string, Promise<ResultImage>>();

  constructor(@Inject(OBJECT_STORE) private readonly objects: ObjectStore) {}

  /** Starts reading the job's image for its next attempt to take. */
  prefetch(jobId: string, outcome: WebhookOutcome): void {
    if (this.early.has(jobId)) return;
    const image = this.load(outcome);
    // A read nobody takes (the delivery was finished already) must not end as an unhandled rejection.
    image.catch(() => undefined);
    this.early.set(jobId, image);
    if (this.early.size > MAX_EARLY_READS) this.early.delete(this.early.keys().next().value!);
  }

  /** The job's image: the early read when there is one (a failed one is read again), else read now. */
  read(jobId: string, outcome: WebhookOutcome): Promise<ResultImage> {
    const early = this.early.get(jobId);
    this.early.delete(jobId);
    if (early) return early.catch(() => this.load(outcome));
    return this.load(outcome);
  }

  private async load(outcome: WebhookOutcome): Promise<ResultImage> {
    if (outcome.event !== 'generation.completed') return undefined;
    if (outcome.inlineImage) return Buffer.from(outcome.inlineImage, 'base64');
    const { bucket, key } = resultLocation(outcome);
    return (await this.objects.get(bucket, key))?.body ?? null;
  }
}
