import { makeEvent, type StoredEvent } from '@thumbforge/contracts';
import type { ProjectionCollection } from '@thumbforge/projection-store';
import { positionKey, type EventLog, type TopicPartition } from './port.js';
import { foldInto, type FoldedDocument } from './projector.js';

const OWNER_FENCED_TYPE = 'log.owner-fenced';

export interface OwnerFenceOptions {
  log: EventLog;
  /** The one-writer topic whose partitions are fenced. */
  topic: string;
  /** The consumer group that shares the topic's partitions: the marker names it. */
  writer: string;
  /** Resolves once the writer's own view (its projection) has folded `marker` and all before it. */
  reached(marker: StoredEvent): Promise<void>;
  /** The epoch of `partition` as the writer's view has folded it so far (its latest marker). */
  current(partition: number): Promise<number | undefined>;
  /** Pause before appending a marker again after a failure (default 200 ms). */
  retryDelayMs?: number;
  /** Told of failed markers (retried) and of commands left to a partition's new owner. */
  logger?: { warn(details: object, message: string): void };
}

/**
 * The owner side of fencing a one-writer topic. When the group hands this replica a partition it did
 * not hold, it appends a `log.owner-fenced` marker there and waits until its view has folded it: the
 * marker's offset is the replica's epoch, and its view then holds every fact that landed before it.
 * Facts decided afterwards carry the epoch (`EventEnvelope.fence`); a replica that lost the partition
 * meanwhile appends with an older epoch behind a newer marker, and every fold drops those facts.
 *
 * A partition kept across a rebalance keeps its epoch (a storm would otherwise spend its time
 * fencing): if another replica held it in between, that replica's marker is newer, so facts under
 * the kept epoch are dropped, and `decide` sees it in its view and fences anew before deciding again.
 */
export class OwnerFence {
  private readonly epochs = new Map<number, Promise<number>>();
  private readonly settled = new Map<number, number>();
  /** Fencing rounds per partition: a marker still failing after a newer round (or none) gives up. */
  private readonly rounds = new Map<number, number>();
  private closed = false;

  constructor(private readonly options: OwnerFenceOptions) {}

  /**
   * For `SubscriptionOptions.onAssignment`. An empty assignment (a rebalance under way) keeps the
   * epochs: the event in flight finishes under its own and is dropped if a new owner fenced first.
   */
  assign(partitions: TopicPartition[]): void {
    if (partitions.length === 0 || this.closed) return;
    const owned = new Set(partitions.filter((p) => p.topic === this.options.topic).map((p) => p.partition));
    for (const partition of this.epochs.keys()) {
      if (!owned.has(partition)) {
        this.epochs.delete(partition);
        this.settled.delete(partition);
        this.rounds.set(partition, (this.rounds.get(partition) ?? 0) + 1);
      }
    }
    for (const partition of owned) {
      const kept = this.settled.get(partition);
      if (kept === undefined) {
        if (!this.epochs.has(partition)) this.refence(partition);
      } else {
        // The log may already say another owner came in between: then fence now, not after a decision.
        void this.options.current(partition).then(
          (current) => current !== kept && this.supersede(partition, kept),
          () => this.supersede(partition, kept),
        );
      }
    }
  }

  /**
   * The epoch to stamp facts decided for `partition` now, once this replica's view has caught up
   * with its marker; undefined when the partition is not this replica's.
   */
  epoch(partition: number): Promise<number> | undefined {
    return this.epochs.get(partition);
  }

  /**
   * Runs the decision about `command` (or any subject of the partition, such as a webhook delivery)
   * under this replica's epoch for its partition, once its view has caught up with its marker. Fenced
   * anew meanwhile (the partition came back to it, or a newer marker dropped the decision), it runs
   * again under the new epoch: deciding is idempotent, so a second run adds only what the first one
   * failed to land. False, without deciding, when the partition is not (or no longer)
   * this replica's: its new owner handles the command again from the group's committed position.
   */
  async decide(
    command: Pick<StoredEvent, 'id' | 'topic' | 'partition'>,
    decision: (epoch: number) => Promise<void>,
  ): Promise<boolean> {
    const { partition } = command;
    for (;;) {
      const owned = this.epoch(partition);
      if (!owned) {
        this.options.logger?.warn(
          { eventId: command.id, topic: command.topic, partition },
          'command of a partition this replica no longer owns left to its owner',
        );
        return false;
      }
      // A marker given up on was superseded (or the fence closed): look again.
      const epoch = await owned.catch(() => undefined);
      if (epoch === undefined) continue;
      await decision(epoch);
      if (!this.holds(partition, epoch)) continue;
      // The view has folded the decision's facts by now: a newer marker before them dropped them.
      if ((await this.options.current(partition)) === epoch) return true;
      this.supersede(partition, epoch);
    }
  }

  /** Whether `epoch` is still this replica's current one for `partition`. */
  holds(partition: number, epoch: number): boolean {
    return this.settled.get(partition) === epoch;
  }

  close(): void {
    this.closed = true;
    this.epochs.clear();
    this.settled.clear();
  }

  /** Fences `partition` again unless `epoch` was superseded already. */
  private supersede(partition: number, epoch: number): void {
    if (!this.closed && this.settled.get(partition) === epoch) this.refence(partition);
  }

  private refence(partition: number): void {
    this.settled.delete(partition);
    const round = (this.rounds.get(partition) ?? 0) + 1;
    this.rounds.set(partition, round);
    const epoch = this.fence(partition, round);
    this.epochs.set(partition, epoch);
    void epoch.then(
      (offset) => {
        if (this.epochs.get(partition) === epoch) this.settled.set(partition, offset);
      },
      () => undefined,
    );
  }

  private async fence(partition: number, round: number): Promise<number> {
    const { log, topic, writer } = this.options;
    for (;;) {
      try {
        const [marker] = await log.append(
          topic,
          [makeEvent(OWNER_FENCED_TYPE, `${topic}:${partition}`, { writer, partition })],
          { partition },
        );
        await this.options.reached(marker);
        return marker.offset;
      } catch (error) {
        if (this.closed || this.rounds.get(partition) !== round) throw error;
        this.options.logger?.warn({ err: error, topic, partition }, 'fencing a partition failed');
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs ?? 200));
      }
    }
  }
}

/** One partition's current owner epoch, as a projection folded it. */
export type OwnerEpochDocument = { id: string; epoch: number } & FoldedDocument;

/**
 * The reader side: a projection that folds facts of a fenced topic keeps each partition's current
 * epoch next to its documents, in log order, so it can tell a fenced-out fact (the domain's
 * `admitsFact`) the same way on every replica and in every rebuild.
 */
export class OwnerEpochs {
  constructor(private readonly collection: ProjectionCollection<OwnerEpochDocument>) {}

  /** Folds a `log.owner-fenced` marker and says so; any other event is left alone (false). */
  async observe(event: StoredEvent): Promise<boolean> {
    if (event.type !== OWNER_FENCED_TYPE) return false;
    const id = positionKey(event.topic, event.partition);
    await foldInto(this.collection, id, event, () => ({ id, epoch: event.offset }));
    return true;
  }

  /** The epoch of the event's (or a) partition folded so far; undefined before any marker. */
  async current({ topic, partition }: TopicPartition): Promise<number | undefined> {
    return (await this.collection.get(positionKey(topic, partition)))?.epoch;
  }
}
