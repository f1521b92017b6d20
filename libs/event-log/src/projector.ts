import type { StoredEvent } from '@thumbforge/contracts';
import type { Document, ProjectionCollection, ProjectionStore } from '@thumbforge/projection-store';
import { positionKey, type EventLog, type LogPositions, type Subscription } from './port.js';

export interface ProjectorOptions {
  log: EventLog;
  store: ProjectionStore;
  /** The projection's name: its positions are saved under it, and it names the consumer group. */
  name: string;
  topics: string[];
  /** Folds one event into the store's documents. */
  apply(event: StoredEvent, store: ProjectionStore): Promise<void>;
  maxAttempts?: number;
  /**
   * Collections nothing but this projection writes. While a replica holds the write lease
   * (`keepProjection`), its reads of them are answered from what it wrote (`cacheOwnWrites`).
   */
  owns?: string[];
}

/**
 * A save waits this long for the events behind the one that asked for it, so the few events of one
 * request cost one write to the store rather than one each. Replicas without the lease learn the
 * positions that much later; they look only every `FOLLOW_POLL_MS` anyway.
 */
export const SAVE_DELAY_MS = 100;

/**
 * Keeps a read model up to date: resumes from the positions the projection saved in its own store and
 * applies each event. Positions are saved behind the events rather than after each one: a save starts
 * `SAVE_DELAY_MS` after an event is applied, between two events (never while one is being applied), at
 * most one is in flight, and the positions reached meanwhile go in the next. So the saved positions
 * never pass the documents, a store that persists never sees an event applied twice on restart beyond
 * those after its last save (applying one again changes nothing), and a database's round trip per
 * event is off the path of every event. Closing saves the final positions. The in-memory store starts
 * empty and replays the log.
 */
export async function startProjector(options: ProjectorOptions): Promise<Subscription> {
  const { log, store, name, apply } = options;
  const saved = await store.positions(name);
  const positions: LogPositions = { ...saved };
  let applying = false;
  let saving: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  // The delay is over while an event is being applied: the save follows that event.
  let due = false;
  // Positions moved past the last save that started (or a save failed).
  let dirty = false;
  // Once closing, only `close` saves: a failed save must not leave a timer behind to retry later.
  let closing = false;
  const flush = (): void => {
    due = false;
    dirty = false;
    saving = store
      .savePositions(name, { ...positions })
      .catch(() => {
        // The next save carries these positions too; until then a restart applies a few events again.
        dirty = true;
      })
      .finally(() => {
        saving = undefined;
        if (dirty) schedule();
      });
  };
  const schedule = (): void => {
    if (closing || saving || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (applying) due = true;
      else flush();
    }, SAVE_DELAY_MS);
  };
  const subscription = await log.subscribe({
    group: `projection.${name}`,
    topics: options.topics,
    from: { positions: saved },
    maxAttempts: options.maxAttempts,
    handle: async (event) => {
      const key = positionKey(event.topic, event.partition);
      if ((positions[key] ?? 0) > event.offset) return;
      applying = true;
      try {
        await apply(event, store);
        positions[key] = event.offset + 1;
        dirty = true;
      } finally {
        applying = false;
      }
      if (due) flush();
      else schedule();
    },
  });
  return {
    caughtUp: subscription.caughtUp,
    waitFor: (topic, offset, partition) => subscription.waitFor(topic, offset, partition),
    close: async () => {
      closing = true;
      await subscription.close();
      clearTimeout(timer);
      timer = undefined;
      while (saving) await saving;
      if (dirty) await store.savePositions(name, { ...positions });
    },
  };
}

/** A document that records, per topic partition, the next offset folded into it. */
export type FoldedDocument = Document & { folded?: LogPositions };

/** The document as its readers know it, without the fold's bookkeeping. */
export function unfolded<T extends FoldedDocument>(doc: T): Omit<T, 'folded'>;
export function unfolded<T extends FoldedDocument>(doc: T | undefined): Omit<T, 'folded'> | undefined;
export function unfolded<T extends FoldedDocument>(doc: T | undefined): Omit<T, 'folded'> | undefined {
  if (!doc) return undefined;
  const { folded: _folded, ...rest } = doc;
  return rest;
}

/**
 * Waits for writes of one event to different documents that may run side by side (each a round trip
 * to the store), then fails with the first failure. Every write has settled by then, so the event's
 * next attempt never races a write of this one.
 */
export async function allWritten(
  writes: ReadonlyArray<Promise<unknown> | false | null | undefined>,
): Promise<void> {
  const results = await Promise.allSettled(writes);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
}

/**
 * Where an event sits in the log. Unlike its id, which a retried append or a command decided again
 * repeats at a later offset, no two appended events share it.
 */
export function logPosition(event: StoredEvent): string {
  return `${positionKey(event.topic, event.partition)}@${event.offset}`;
}

/**
 * A document one fact writes before the document whose positions say the fact is applied
 * (`foldInto`), stamped with where that fact sits in the log. Applied again after a crash between
 * the two writes, the fact then finds the document as it was before it (`stampedBefore`). Not the
 * fact's id: a retried append, or a command decided again, puts the same id at a later offset, and
 * that copy must find the document as the first one left it.
 */
export interface StampedDocument extends Document {
  setBy: string;
}

/** The stamped document as `event` found it: none when `event` itself wrote it. */
export function stampedBefore<S extends StampedDocument>(
  doc: S | undefined,
  event: StoredEvent,
): S | undefined {
  return doc?.setBy === logPosition(event) ? undefined : doc;
}

/**
 * Writes what `event` makes of a stamped document, unless `event` wrote it already (`current`) or a
 * later fact of its partition has. The latter is what a writer frozen past its lease meets: its
 * `current` is stale, and the store's conditional update hands it the next writer's version instead.
 */
export async function putStamped<S extends StampedDocument>(
  collection: ProjectionCollection<S>,
  current: S | undefined,
  event: StoredEvent,
  doc: Omit<S, 'setBy'>,
): Promise<void> {
  const setBy = logPosition(event);
  if (current?.setBy === setBy) return;
  const next = { ...doc, setBy } as S;
  await collection.update(doc.id, (stored) => (stored && setAfter(stored, event) ? stored : next));
}

/** Whether a fact after `event` in the same partition set the document. */
function setAfter(doc: StampedDocument, event: StoredEvent): boolean {
  const at = doc.setBy.lastIndexOf('@');
  return (
    doc.setBy.slice(0, at) === positionKey(event.topic, event.partition) &&
    Number(doc.setBy.slice(at + 1)) > event.offset
  );
}

/** Whether the event is folded into the document already. */
export function hasFolded(doc: FoldedDocument | undefined, event: StoredEvent): boolean {
  return (doc?.folded?.[positionKey(event.topic, event.partition)] ?? 0) > event.offset;
}

/**
 * Folds one event into one document of a store that several replicas keep at once, each applying the
 * whole log in order. The document remembers how far each partition has been folded into it, so an
 * event that a lagging replica applies after later ones changes nothing; and the store's `update`
 * makes writers that meet on one document retry on the fresh version instead of overwriting it. Every
 * event of a partition that touches the document is then folded exactly once, in log order.
 * `change` returns the next document, or the current one (or undefined) for no change.
 */
export async function foldInto<T extends FoldedDocument>(
  collection: ProjectionCollection<T>,
  id: string,
  event: StoredEvent,
  change: (current: T | undefined) => T | undefined,
): Promise<T | undefined> {
  const key = positionKey(event.topic, event.partition);
  return collection.update(id, (current) => {
    if (hasFolded(current, event)) return current;
    const next = change(current);
    if (next === undefined || next === current) return current;
    return { ...next, id, folded: { ...current?.folded, [key]: event.offset + 1 } };
  });
}

/**
 * The topic whose single partition is the write lease of each projection: the member of a
 * projection's writer group that owns it is the one replica that writes the read model. Nothing is
 * ever appended to it.
 */
export const LEASE_TOPIC = 'thumbforge.leases';

/** How often a replica without the lease looks at the store's positions while someone waits. */
const FOLLOW_POLL_MS = 15;

/** A read model as its readers see it, whichever replica writes it. */
export interface KeptProjection {
  /** Resolves once the events that were on the log at start are applied to the store. */
  readonly caughtUp: Promise<void>;
  /** Resolves once the store holds `event` (and every earlier event of its partition). */
  reached(event: Pick<StoredEvent, 'topic' | 'partition' | 'offset'>): Promise<void>;
  close(): Promise<void>;
}

/**
 * Keeps a read model in a store that every replica of a service shares. One replica at a time writes
 * it (the holder of the projection's lease, a one-partition consumer group: when it dies, the group
 * hands the lease on after the session timeout and the next writer resumes from the saved positions);
 * the others read the same documents and learn how far they are by the positions the writer saves.
 * A store that cannot update a document atomically (FerretDB) is thereby never written concurrently,
 * except for the event in flight while a lease moves, which `foldInto` makes harmless.
 */
export async function keepProjection(options: ProjectorOptions): Promise<KeptProjection> {
  const { log, store, name } = options;
  let writer: Promise<Subscription | null> = Promise.resolve(null);
  let closed = false;
  const cacheOwnWrites = (on: boolean) => {
    for (const collection of options.owns ?? []) store.collection(collection).cacheOwnWrites?.(on);
  };
  // Lease changes are applied one after the other: a writer is closed before the next one starts.
  const lead = (leading: boolean) => {
    // Reads stop trusting this replica's own writes as soon as another may write.
    if (!leading) cacheOwnWrites(false);
    writer = writer.then(async (current) => {
      if (leading && !current && !closed) {
        cacheOwnWrites(true);
        return startProjector(options);
      }
      if (!leading && current) await current.close().catch(() => undefined);
      return leading ? current : null;
    });
    writer.catch(() => undefined);
  };
  const lease = await log.subscribe({
    group: `projection.${name}.writer`,
    topics: [LEASE_TOPIC],
    from: 'committed',
    assignmentsOnly: true,
    handle: async () => undefined,
    onAssignment: (partitions) => lead(partitions.length > 0),
  });

  // Every wait on this replica shares one look at the saved positions per tick.
  const waiting = new Set<{ done: (positions: LogPositions) => boolean; settle: (error?: Error) => void }>();
  let polling = false;
  const poll = async () => {
    polling = true;
    try {
      while (waiting.size > 0) {
        if (closed) {
          for (const waiter of waiting) waiter.settle(new Error(`the ${name} projection is closed`));
          break;
        }
        try {
          const positions = await store.positions(name);
          for (const waiter of waiting) if (waiter.done(positions)) waiter.settle();
        } catch {
          // The store is briefly unreachable: the next tick asks again.
        }
        if (waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
      }
    } finally {
      polling = false;
    }
  };
  const follow = (done: (positions: LogPositions) => boolean): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const waiter = {
        done,
        settle: (error?: Error) => {
          waiting.delete(waiter);
          if (error) reject(error);
          else resolve();
        },
      };
      waiting.add(waiter);
      if (!polling) void poll();
    });
  const ends = await Promise.all(
    options.topics.map(async (topic) => [topic, await log.size(topic)] as const),
  );
  const caughtUp = follow((positions) =>
    ends.every(([topic, end]) => {
      let folded = 0;
      for (const [key, offset] of Object.entries(positions)) {
        if (key.slice(0, key.lastIndexOf(':')) === topic) folded += offset;
      }
      return folded >= end;
    }),
  );
  caughtUp.catch(() => undefined);

  return {
    caughtUp,
    reached: async (event) => {
      const current = await writer;
      try {
        if (current) return await current.waitFor(event.topic, event.offset, event.partition);
      } catch (error) {
        // The lease moved while waiting: the next writer's positions tell the rest.
        if (closed) throw error;
      }
      const key = positionKey(event.topic, event.partition);
      return follow((positions) => (positions[key] ?? 0) > event.offset);
    },
    close: async () => {
      closed = true;
      await lease.close();
      lead(false);
      await writer;
    },
  };
}

/**
 * A read model kept by `keepProjection`: subclasses say which topics they read and how one event
 * changes their documents; starting, catching up, read-your-writes waits and closing are shared.
 */
export abstract class Projection {
  private kept: KeptProjection | null = null;

  protected constructor(
    protected readonly log: EventLog,
    protected readonly store: ProjectionStore,
    private readonly name: string,
    private readonly topics: string[],
    /** The collections only this projection writes (`ProjectorOptions.owns`). */
    private readonly owns: string[] = [],
  ) {}

  protected abstract apply(event: StoredEvent): Promise<void>;

  async start(): Promise<void> {
    this.kept ??= await keepProjection({
      log: this.log,
      store: this.store,
      name: this.name,
      topics: this.topics,
      owns: this.owns,
      apply: (event) => this.apply(event),
    });
  }

  /** Resolves once the events that were on the log at start are applied. */
  get caughtUp(): Promise<void> {
    return this.started().caughtUp;
  }

  /** Resolves once the projection has applied `event` (and every earlier event of its partition). */
  reached(event: Pick<StoredEvent, 'topic' | 'partition' | 'offset'>): Promise<void> {
    return this.started().reached(event);
  }

  /**
   * Resolves once the projection has applied every event its topics held when called, whichever
   * replica writes it: a fact appended before something this replica has seen is then in the store.
   */
  async reachedEnds(): Promise<void> {
    await Promise.all(
      this.topics.map(async (topic) => {
        const ends = await this.log.ends(topic);
        await Promise.all(
          ends.map((end, partition) =>
            end > 0 ? this.reached({ topic, partition, offset: end - 1 }) : undefined,
          ),
        );
      }),
    );
  }

  /** Read-your-writes: waits until every given event is applied here. */
  async settle(events: StoredEvent[]): Promise<void> {
    for (const event of events) await this.reached(event);
  }

  async close(): Promise<void> {
    await this.kept?.close();
    this.kept = null;
  }

  private started(): KeptProjection {
    if (!this.kept) throw new Error(`the ${this.name} projection has not been started`);
    return this.kept;
  }
}
