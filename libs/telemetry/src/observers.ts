import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { BatchObservableCallback, Meter } from '@opentelemetry/api';
import { breakerStates } from '@thumbforge/resilience';
import { METRICS } from './catalogue.js';

/** Published by the Kafka subscription for every fetched batch (libs/event-log/src/kafka). */
export const KAFKA_BATCH_CHANNEL = 'thumbforge.event-log.kafka.batch';

export interface KafkaBatchMessage {
  group: string;
  topic: string;
  partition: number;
  /** The partition's end offset when the batch was fetched. */
  highWatermark: string;
  /** The offset of the batch's first record: where the group stands now. */
  firstOffset: string;
}

interface PartitionLag {
  group: string;
  topic: string;
  partition: number;
  highWatermark: number;
  /** The next offset the group has not handled. */
  next: number;
}

/**
 * Consumer lag per group and partition: the high watermark comes with each fetched batch, the
 * position from the traced subscriptions as they finish each event, so the lag falls as a batch is
 * worked off rather than only at the next fetch.
 */
export class ConsumerLag {
  private readonly partitions = new Map<string, PartitionLag>();

  private key(group: string, topic: string, partition: number): string {
    return `${group}\u0000${topic}\u0000${partition}`;
  }

  readonly onBatch = (message: unknown): void => {
    const batch = message as KafkaBatchMessage;
    const key = this.key(batch.group, batch.topic, batch.partition);
    const known = this.partitions.get(key);
    this.partitions.set(key, {
      group: batch.group,
      topic: batch.topic,
      partition: batch.partition,
      highWatermark: Number(batch.highWatermark),
      next: Math.max(known?.next ?? 0, Number(batch.firstOffset)),
    });
  };

  handled(group: string, topic: string, partition: number, offset: number): void {
    const known = this.partitions.get(this.key(group, topic, partition));
    if (known) known.next = Math.max(known.next, offset + 1);
  }

  *current(): Iterable<{ lag: number; group: string; topic: string; partition: number }> {
    for (const { group, topic, partition, highWatermark, next } of this.partitions.values()) {
      yield { lag: Math.max(0, highWatermark - next), group, topic, partition };
    }
  }
}

let lag: ConsumerLag | undefined;

/** The lag tracker of the running telemetry; undefined while it is off. */
export function consumerLag(): ConsumerLag | undefined {
  return lag;
}

/** Registers the observable gauges (consumer lag, breaker states); returns their removal. */
export function startObservers(meter: Meter): () => void {
  const tracker = new ConsumerLag();
  lag = tracker;
  subscribe(KAFKA_BATCH_CHANNEL, tracker.onBatch);
  const lagGauge = meter.createObservableGauge(METRICS.consumerLag.name, {
    unit: METRICS.consumerLag.unit,
    description: METRICS.consumerLag.description,
  });
  const breakerGauge = meter.createObservableGauge(METRICS.breakerOpen.name, {
    unit: METRICS.breakerOpen.unit,
    description: METRICS.breakerOpen.description,
  });
  const observe: BatchObservableCallback = (result) => {
    for (const { lag: value, ...attributes } of tracker.current())
      result.observe(lagGauge, value, attributes);
    // Two breakers of one name (tests, restarts) report the worse state.
    const open = new Map<string, number>();
    for (const { name, state } of breakerStates()) {
      open.set(name, Math.max(open.get(name) ?? 0, state === 'open' ? 1 : 0));
    }
    for (const [breaker, value] of open) result.observe(breakerGauge, value, { breaker });
  };
  meter.addBatchObservableCallback(observe, [lagGauge, breakerGauge]);
  return () => {
    meter.removeBatchObservableCallback(observe, [lagGauge, breakerGauge]);
    unsubscribe(KAFKA_BATCH_CHANNEL, tracker.onBatch);
    if (lag === tracker) lag = undefined;
  };
}
