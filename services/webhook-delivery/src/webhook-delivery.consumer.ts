import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { EVENT_LOG, startProjector, type EventLog, type Subscription } from '@thumbforge/event-log';
import { CLOCK, ReadinessRegistry, type Clock } from '@thumbforge/platform';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';
import { WebhookSender } from './attempt-delivery/webhook-sender.js';
import { DeliveryProjection } from './deliveries/delivery-projection.js';
import { SigningKeys } from './deliveries/signing-keys.js';
import { RequestDeliveryUseCase } from './request-delivery/request-delivery.usecase.js';
import { DeliveryScheduler } from './scheduling/delivery-scheduler.js';

/**
 * Wires the log to the use cases: the delivery and signing-key projections, the intake of render
 * outcomes, and the scheduler, which starts once the projections have caught up with the log.
 */
@Injectable()
export class WebhookDeliveryConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private projections: Subscription[] = [];
  private deliveriesSubscription: Subscription | null = null;
  private intake: Subscription | null = null;
  /** Set once the schedule has been rebuilt; from then on new requests are scheduled as they arrive. */
  private live = false;

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(PROJECTION_STORE) private readonly store: ProjectionStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readiness: ReadinessRegistry,
    private readonly deliveries: DeliveryProjection,
    private readonly keys: SigningKeys,
    private readonly requestDelivery: RequestDeliveryUseCase,
    private readonly scheduler: DeliveryScheduler,
    private readonly sender: WebhookSender,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const deliveries = await startProjector({
      log: this.log,
      store: this.store,
      name: 'webhook-delivery.deliveries',
      topics: [TOPICS.webhooks],
      apply: (event) => this.applyDelivery(event),
    });
    const keys = await startProjector({
      log: this.log,
      store: this.store,
      name: 'webhook-delivery.signing-keys',
      topics: [TOPICS.gateway],
      apply: (event) => this.keys.apply(event),
    });
    this.deliveriesSubscription = deliveries;
    this.projections = [deliveries, keys];

    const projected = Promise.all([deliveries.caughtUp, keys.caughtUp]).then(() => this.resume());
    this.intake = await this.log.subscribe({
      group: 'webhook-intake',
      topics: [TOPICS.jobs],
      from: 'committed',
      handle: async (event) => {
        // "Already requested?" is answered by the delivery projection, so it must be complete first.
        await projected;
        await this.requestFor(event);
      },
    });
    this.readiness.track('webhook-delivery', Promise.all([projected, this.intake.caughtUp]));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.intake?.close();
    await this.scheduler.stop();
    await Promise.all(this.projections.map((subscription) => subscription.close()));
    await this.sender.close();
  }

  private async applyDelivery(event: StoredEvent): Promise<void> {
    const opened = await this.deliveries.apply(event);
    if (opened && this.live) this.scheduler.schedule(opened.id, 1, this.clock.now());
  }

  /** Schedules every unfinished delivery: the first attempt now, a retry when it is due. */
  private async resume(): Promise<void> {
    this.live = true;
    const now = this.clock.now();
    for (const delivery of await this.deliveries.pending()) {
      const due = delivery.attempts > 0 && delivery.nextAttemptAt ? new Date(delivery.nextAttemptAt) : now;
      this.scheduler.schedule(delivery.id, delivery.attempts + 1, due);
    }
  }

  private async requestFor(event: StoredEvent): Promise<void> {
    const requested = await this.requestDelivery.execute({ event });
    // The next outcome for the same job must find this request in the projection.
    if (requested) {
      await this.deliveriesSubscription!.waitFor(requested.topic, requested.offset, requested.partition);
    }
  }
}
