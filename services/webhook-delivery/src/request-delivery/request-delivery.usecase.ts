import { Inject, Injectable } from '@nestjs/common';
import {
  isEvent,
  isoSeconds,
  makeEvent,
  renderedResult,
  TOPICS,
  type StoredEvent,
  type WebhookOutcome,
} from '@thumbforge/contracts';
import { EVENT_LOG, type EventLog } from '@thumbforge/event-log';
import { CLOCK, type Clock } from '@thumbforge/platform';
import { DeliveryProjection } from '../deliveries/delivery-projection.js';

export interface RequestDeliveryCommand {
  /** An event of TOPICS.jobs; only render outcomes of jobs with a webhookUrl lead to a delivery. */
  event: StoredEvent;
}

/** Turns a job's render outcome into a delivery request on TOPICS.webhooks, once per job. */
@Injectable()
export class RequestDeliveryUseCase {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly deliveries: DeliveryProjection,
  ) {}

  /** Answers the appended request, or null when there is nothing (more) to deliver. */
  async execute({ event }: RequestDeliveryCommand): Promise<StoredEvent | null> {
    let outcome: WebhookOutcome;
    if (isEvent(event, 'render.succeeded')) {
      outcome = { event: 'generation.completed', ...renderedResult(event.payload) };
    } else if (isEvent(event, 'render.failed')) {
      outcome = { event: 'generation.failed', error: event.payload.error };
    } else {
      return null;
    }
    const { jobId, accountId, webhookUrl } = event.payload;
    if (!webhookUrl || (await this.deliveries.get(jobId))) return null;

    const request = makeEvent(
      'webhook.delivery-requested',
      jobId,
      // The body's timestamp is fixed here, from the outcome itself, so every attempt sends the same bytes.
      { jobId, accountId, url: webhookUrl, outcome, timestamp: isoSeconds(new Date(event.occurredAt)) },
      {
        id: `evt_wh_req_${jobId}`,
        correlationId: jobId,
        causationId: event.id,
        occurredAt: this.clock.now(),
      },
    );
    const [stored] = await this.log.append(TOPICS.webhooks, [request]);
    return stored ?? null;
  }
}
