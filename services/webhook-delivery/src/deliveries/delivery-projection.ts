import { Inject, Injectable } from '@nestjs/common';
import { isEvent, TOPICS, type StoredEvent, type WebhookOutcome } from '@thumbforge/contracts';
import { admitsFact } from '@thumbforge/domain';
import { foldInto, OwnerEpochs, type FoldedDocument, type OwnerEpochDocument } from '@thumbforge/event-log';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';

export type DeliveryState = 'pending' | 'delivered' | 'exhausted';

/** One webhook delivery (one per job), folded from TOPICS.webhooks. */
export interface DeliveryDoc extends FoldedDocument {
  /** The job id. */
  id: string;
  /** The TOPICS.webhooks partition of the job's events: the replica that owns it makes the attempts. */
  partition?: number;
  accountId: string | null;
  url: string;
  outcome: WebhookOutcome;
  timestamp: string;
  /** The `webhook.delivery-requested` event: the cause of every attempt's event. */
  requestEventId: string;
  state: DeliveryState;
  /** Attempts made so far, as recorded on the log. */
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
}

export const DELIVERIES_COLLECTION = 'webhook_deliveries';
/** Per partition of TOPICS.webhooks: the attempts' current owner epoch (see `AttemptFence`). */
export const EPOCHS_COLLECTION = 'webhook_epochs';

@Injectable()
export class DeliveryProjection {
  constructor(@Inject(PROJECTION_STORE) private readonly store: ProjectionStore) {}

  private get deliveries() {
    return this.store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
  }

  private get epochs() {
    return new OwnerEpochs(this.store.collection<OwnerEpochDocument>(EPOCHS_COLLECTION));
  }

  /** The attempts' owner epoch of a partition of TOPICS.webhooks, as folded so far. */
  epoch(partition: number): Promise<number | undefined> {
    return this.epochs.current({ topic: TOPICS.webhooks, partition });
  }

  /** Folds one event of TOPICS.webhooks into its job's delivery. */
  async apply(event: StoredEvent): Promise<void> {
    if (await this.epochs.observe(event)) return;
    // In log order: an attempt recorded under an epoch before the partition's latest one is a stale owner's.
    if (event.fence !== undefined && !admitsFact(await this.epochs.current(event), event)) return;
    if (isEvent(event, 'webhook.delivery-requested')) {
      const { jobId, accountId, url, outcome, timestamp } = event.payload;
      await foldInto(this.deliveries, jobId, event, (current) =>
        current
          ? current
          : {
              id: jobId,
              partition: event.partition,
              accountId,
              url,
              outcome,
              timestamp,
              requestEventId: event.id,
              state: 'pending' as const,
              attempts: 0,
              nextAttemptAt: null,
              lastStatus: null,
              lastError: null,
            },
      );
    } else if (isEvent(event, 'webhook.attempt-failed')) {
      const { jobId, attempt, status, error, nextAttemptAt } = event.payload;
      await this.change(event, jobId, (d) => ({
        ...d,
        attempts: Math.max(d.attempts, attempt),
        nextAttemptAt,
        lastStatus: status,
        lastError: error,
      }));
    } else if (isEvent(event, 'webhook.delivered')) {
      const { jobId, attempt, status } = event.payload;
      await this.change(event, jobId, (d) => ({
        ...d,
        state: 'delivered',
        attempts: Math.max(d.attempts, attempt),
        nextAttemptAt: null,
        lastStatus: status,
        lastError: null,
      }));
    } else if (isEvent(event, 'webhook.exhausted')) {
      const { jobId, attempts, lastError } = event.payload;
      await this.change(event, jobId, (d) => ({
        ...d,
        state: d.state === 'delivered' ? d.state : 'exhausted',
        attempts: Math.max(d.attempts, attempts),
        nextAttemptAt: null,
        lastError,
      }));
    }
  }

  private async change(event: StoredEvent, jobId: string, change: (delivery: DeliveryDoc) => DeliveryDoc) {
    await foldInto(this.deliveries, jobId, event, (current) => current && change(current));
  }

  get(jobId: string): Promise<DeliveryDoc | undefined> {
    return this.deliveries.get(jobId);
  }

  pending(): Promise<DeliveryDoc[]> {
    return this.deliveries.find({ state: 'pending' });
  }
}
