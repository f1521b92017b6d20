import type { StoredEvent } from '@thumbforge/contracts';

/** The type of the marker a new owner appends to a partition before deciding there. */
export const OWNER_FENCED = 'log.owner-fenced';

/** `topic:partition` → the current owner epoch: the offset of the partition's latest marker. */
export type EpochsByPartition = Record<string, number>;

type Positioned = Pick<StoredEvent, 'type' | 'topic' | 'partition' | 'offset' | 'fence'>;

function partitionOf(event: Positioned): string {
  return `${event.topic}:${event.partition}`;
}

export function isOwnerFenced(event: Pick<StoredEvent, 'type'>): boolean {
  return event.type === OWNER_FENCED;
}

/**
 * Whether a fold takes `event`, given the epoch of its partition's latest marker before it (-1 or
 * undefined: none yet). Markers themselves are bookkeeping, not facts. A fact stamped with an epoch
 * older than the current one was decided by a replica that had lost the partition, possibly from a
 * stale view, so it is dropped; unstamped facts (written by no fenced writer) are always taken.
 */
export function admitsFact(currentEpoch: number | undefined, event: Positioned): boolean {
  if (isOwnerFenced(event)) return false;
  return event.fence === undefined || event.fence >= (currentEpoch ?? -1);
}

/** The epoch of the event's partition in `epochs`. */
export function currentEpoch(epochs: EpochsByPartition, event: Positioned): number | undefined {
  return epochs[partitionOf(event)];
}

/** The epochs after `event`: a marker makes its own offset the epoch of its partition. */
export function observeFence(epochs: EpochsByPartition, event: Positioned): EpochsByPartition {
  if (!isOwnerFenced(event)) return epochs;
  return { ...epochs, [partitionOf(event)]: event.offset };
}

/**
 * The facts of a log that folds take, in the given order (which must be log order per partition):
 * markers and fenced-out facts are left out. Rebuilds and checks fold what this yields.
 */
export function* admittedFacts<T extends Positioned>(events: Iterable<T>): Generator<T> {
  let epochs: EpochsByPartition = {};
  for (const event of events) {
    epochs = observeFence(epochs, event);
    if (admitsFact(currentEpoch(epochs, event), event)) yield event;
  }
}

/**
 * Admission for consumers that act on facts as they arrive (render a reservation, answer a request)
 * instead of folding them, and that may start in the middle of a partition: it learns each
 * partition's epoch from the markers and from the stamps of admitted facts (a stamp is the offset of
 * a marker before the fact), and drops a fact stamped with an older epoch than the latest it knows.
 * It never drops a fact the folds admit; a stale fact reaching it before any sign of the newer owner
 * passes (see `docs/cluster.md`). Call it once per event, in log order per partition.
 */
export class FactAdmission {
  private epochs: EpochsByPartition = {};

  admits(event: Positioned): boolean {
    this.epochs = observeFence(this.epochs, event);
    const epoch = currentEpoch(this.epochs, event);
    if (!admitsFact(epoch, event)) return false;
    if (event.fence !== undefined && event.fence > (epoch ?? -1)) {
      this.epochs = { ...this.epochs, [partitionOf(event)]: event.fence };
    }
    return true;
  }
}
