import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { isEvent, TOPICS, type StoredEvent } from '@thumbforge/contracts';
import {
  EVENT_LOG,
  keepProjection,
  type EventLog,
  type KeptProjection,
  type Subscription,
} from '@thumbforge/event-log';
import { CLOCK, ReadinessRegistry, type Clock } from '@thumbforge/platform';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';
import { ATTEMPTS_GROUP, AttemptFence } from './attempt-delivery/attempt-fence.js';
import { ResultImages } from './attempt-delivery/result-images.js';
import { WebhookSender } from './attempt-delivery/webhook-sender.js';
import {
  DELIVERIES_COLLECTION,
  DeliveryProjection,
  EPOCHS_COLLECTION,
  type DeliveryDoc,
} from './deliveries/delivery-projection.js';
import { SIGNING_KEYS_COLLECTION, SigningKeys } from './deliveries/signing-keys.js';
import { RequestDeliveryUseCase } from './request-delivery/request-delivery.usecase.js';
import { DeliveryScheduler } from './scheduling/delivery-scheduler.js';

/**
 * Wires the log to the use cases: the delivery and signing-key projections, the intake of render
 * outcomes, and the attempts. Replicas share the attempts by partition: the one that owns a job's
 * partition of TOPICS.webhooks in the attempts group keeps its timers; on a rebalance the new owner
 * picks up the pending deliveries of the partitions it received from the projection. Attempts are
 * fenced with the owner epoch of their partition (`AttemptFence`).
 */
@Injectable()
export class WebhookDeliveryConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private projections: KeptProjection[] = [];
  private deliveriesKept: KeptProjection | null = null;
  private subscriptions: Subscription[] = [];
  private owned = new Set<number>();
  private projected: Promise<void> = Promise.resolve();
  private resumed: Promise<void> = Promise.resolve();
  /** Whether the attempts consumer has caught up with the log once: what it handles since is new. */
  private attemptsLive = false;

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
    private readonly fence: AttemptFence,
    private readonly images: ResultImages,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const deliveries = await keepProjection({
      log: this.log,
      store: this.store,
      name: 'webhook-delivery.deliveries',
      topics: [TOPICS.webhooks],
      apply: (event) => this.deliveries.apply(event),
      owns: [DELIVERIES_COLLECTION, EPOCHS_COLLECTION],
    });
    const keys = await keepProjection({
      log: this.log,
      store: this.store,
      name: 'webhook-delivery.signing-keys',
      topics: [TOPICS.gateway],
      apply: (event) => this.keys.apply(event),
      owns: [SIGNING_KEYS_COLLECTION],
    });
    this.deliveriesKept = deliveries;
    this.fence.follow(deliveries);
    this.projections = [deliveries, keys];
    // "Already requested?" and "still pending?" are answered by the projections: complete them first.
    this.projected = Promise.all([deliveries.caughtUp, keys.caughtUp]).then(() => undefined);
    this.scheduler.restrictTo((partition) => this.owned.has(partition));

    const attempts = await this.log.subscribe({
      group: ATTEMPTS_GROUP,
      topics: [TOPICS.webhooks],
      from: 'committed',
      onAssignment: (partitions) => {
        this.fence.assign(partitions);
        this.own(partitions.map(({ partition }) => partition));
      },
      handle: async (event) => {
        if (!isEvent(event, 'webhook.delivery-requested')) return;
        // The first attempt's image is read beside the wait for the projection, not after it; not for
        // requests handled again while catching up, whose deliveries are mostly finished.
        if (this.attemptsLive) this.images.prefetch(event.payload.jobId, event.payload.outcome);
        await this.projected;
        await deliveries.reached(event);
        const delivery = await this.deliveries.get(event.payload.jobId);
        if (delivery) this.schedule(delivery);
      },
    });
    attempts.caughtUp.then(
      () => (this.attemptsLive = true),
      () => undefined,
    );
    const intake = await this.log.subscribe({
      group: 'webhook-intake',
      topics: [TOPICS.jobs],
      from: 'committed',
      handle: async (event) => {
        await this.projected;
        await this.requestFor(event);
      },
    });
    this.subscriptions = [intake, attempts];
    this.readiness.track(
      'webhook-delivery',
      Promise.all([this.projected, intake.caughtUp, attempts.caughtUp]),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const subscription of this.subscriptions) await subscription.close();
    // Its partitions are someone else's now: an attempt in flight is recorded but not decided again.
    this.fence.close();
    await this.scheduler.stop();
    await Promise.all(this.projections.map((projection) => projection.close()));
    await this.sender.close();
  }

  /** The partitions this replica now attempts for: timers of the others go, pending ones of these start. */
  private own(partitions: number[]): void {
    this.owned = new Set(partitions);
    this.scheduler.restrictTo((partition) => this.owned.has(partition));
    if (partitions.length === 0) return;
    const owned = this.owned;
    this.resumed = this.resumed
      .then(() => this.projected)
      .then(async () => {
        if (owned !== this.owned) return;
        for (const delivery of await this.deliveries.pending()) this.schedule(delivery);
      })
      .catch(() => undefined);
  }

  /** The next attempt of a pending delivery: the first now, a retry when it is due. */
  private schedule(delivery: DeliveryDoc): void {
    if (delivery.state !== 'pending') return;
    const due =
      delivery.attempts > 0 && delivery.nextAttemptAt ? new Date(delivery.nextAttemptAt) : this.clock.now();
    this.scheduler.schedule(
      { jobId: delivery.id, partition: delivery.partition ?? 0 },
      delivery.attempts + 1,
      due,
    );
  }

  private async requestFor(event: StoredEvent): Promise<void> {
    const requested = await this.requestDelivery.execute({ event });
    // The next outcome for the same job must find this request in the projection.
    if (requested) await this.deliveriesKept!.reached(requested);
  }
}
