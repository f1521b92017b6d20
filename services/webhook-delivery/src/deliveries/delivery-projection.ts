import { Inject, Injectable } from '@nestjs/common';
import { isEvent, type StoredEvent, type WebhookOutcome } from '@thumbforge/contracts';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';

export type DeliveryState = 'pending' | 'delivered' | 'exhausted';

/** One webhook delivery (one per job), folded from TOPICS.webhooks. */
export interface DeliveryDoc {
  /** The job id. */
  id: string;
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

@Injectable()
export class DeliveryProjection {
  constructor(@Inject(PROJECTION_STORE) private readonly store: ProjectionStore) {}

  private get deliveries() {
    return this.store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
  }

  /** Folds one event; answers the delivery when the event opened a new one, so it can be scheduled. */
  async apply(event: StoredEvent): Promise<DeliveryDoc | null> {
    if (isEvent(event, 'webhook.delivery-requested')) {
      const { jobId, accountId, url, outcome, timestamp } = event.payload;
      if (await this.deliveries.get(jobId)) return null;
      const delivery: DeliveryDoc = {
        id: jobId,
        accountId,
        url,
        outcome,
        timestamp,
        requestEventId: event.id,
        state: 'pending',
        attempts: 0,
        nextAttemptAt: null,
        lastStatus: null,
        lastError: null,
      };
      await this.deliveries.put(delivery);
      return delivery;
    }
    if (isEvent(event, 'webhook.attempt-failed')) {
      const { jobId, attempt, status, error, nextAttemptAt } = event.payload;
      await this.update(jobId, (d) => ({
        ...d,
        attempts: Math.max(d.attempts, attempt),
        nextAttemptAt,
        lastStatus: status,
        lastError: error,
      }));
    } else if (isEvent(event, 'webhook.delivered')) {
      const { jobId, attempt, status } = event.payload;
      await this.update(jobId, (d) => ({
        ...d,
        state: 'delivered',
        attempts: Math.max(d.attempts, attempt),
        nextAttemptAt: null,
        lastStatus: status,
        lastError: null,
      }));
    } else if (isEvent(event, 'webhook.exhausted')) {
      const { jobId, attempts, lastError } = event.payload;
      await this.update(jobId, (d) => ({
        ...d,
        state: d.state === 'delivered' ? d.state : 'exhausted',
        attempts: Math.max(d.attempts, attempts),
        nextAttemptAt: null,
        lastError,
      }));
    }
    return null;
  }

  private async update(jobId: string, change: (delivery: DeliveryDoc) => DeliveryDoc): Promise<void> {
    const delivery = await this.deliveries.get(jobId);
    if (delivery) await this.deliveries.put(change(delivery));
  }

  get(jobId: string): Promise<DeliveryDoc | undefined> {
    return this.deliveries.get(jobId);
  }

  pending(): Promise<DeliveryDoc[]> {
    return this.deliveries.find({ state: 'pending' });
  }
}
