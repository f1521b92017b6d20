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
