import { Inject, Injectable } from '@nestjs/common';
import { TOPICS, type StoredEvent } from '@thumbforge/contracts';
import {
  EVENT_LOG,
  OwnerFence,
  type EventLog,
  type KeptProjection,
  type TopicPartition,
} from '@thumbforge/event-log';
import { LOGGER, type Logger } from '@thumbforge/platform';
import { DeliveryProjection } from '../deliveries/delivery-projection.js';

/** The consumer group whose members share the attempts by partition of TOPICS.webhooks. */
export const ATTEMPTS_GROUP = 'webhook-delivery.attempts';

/**
 * Attempts are one-writer decisions (which attempt is next, and its recorded result), so they are
 * fenced like billing's: the replica owning a job's partition of TOPICS.webhooks decides under its
 * owner epoch, from a delivery projection that holds everything before its marker, and stamps the
 * result with it; the projection drops results a replica recorded after losing the partition.
 */
@Injectable()
export class AttemptFence {
  private readonly fence: OwnerFence;
  private projection: Pick<KeptProjection, 'reached'> | null = null;

  constructor(
    @Inject(EVENT_LOG) log: EventLog,
    deliveries: DeliveryProjection,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.fence = new OwnerFence({
      log,
      topic: TOPICS.webhooks,
      writer: ATTEMPTS_GROUP,
      reached: (marker) => this.reached(marker),
      current: (partition) => deliveries.epoch(partition),
      logger,
    });
  }

  /** The delivery projection as kept by this process: what `reached` waits for. */
  follow(projection: Pick<KeptProjection, 'reached'>): void {
    this.projection = projection;
  }

  /** For the attempts subscription's `onAssignment`. */
  assign(partitions: TopicPartition[]): void {
    this.fence.assign(partitions);
  }

  /** Runs `decision` under this replica's epoch for the delivery's partition; false when not its own. */
  decide(
    delivery: { id: string; partition: number },
    decision: (epoch: number) => Promise<void>,
  ): Promise<boolean> {
    return this.fence.decide({ ...delivery, topic: TOPICS.webhooks }, decision);
  }

  /** Resolves once the delivery projection has folded `event` (or dropped it as fenced out). */
  async reached(event: StoredEvent): Promise<void> {
    if (!this.projection) throw new Error('the delivery projection is not kept yet');
    await this.projection.reached(event);
  }

  close(): void {
    this.fence.close();
  }
}
