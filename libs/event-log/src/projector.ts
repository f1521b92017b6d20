import type { StoredEvent } from '@thumbforge/contracts';
import type { ProjectionStore } from '@thumbforge/projection-store';
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
}

/**
 * Keeps a read model up to date: resumes from the positions the projection saved in its own store,
 * applies each event, then saves the position after it. A store that persists therefore never sees an
 * event applied twice on restart; the in-memory store starts empty and replays the log from the start.
 */
export async function startProjector(options: ProjectorOptions): Promise<Subscription> {
  const { log, store, name, apply } = options;
  const saved = await store.positions(name);
  const positions: LogPositions = { ...saved };
  return log.subscribe({
    group: `projection.${name}`,
    topics: options.topics,
    from: { positions: saved },
    maxAttempts: options.maxAttempts,
    handle: async (event) => {
      const key = positionKey(event.topic, event.partition);
      // On a retry after applying but failing to save, only the save is repeated.
      if ((positions[key] ?? 0) <= event.offset) {
        await apply(event, store);
        positions[key] = event.offset + 1;
      }
      await store.savePositions(name, { ...positions });
    },
  });
}

/**
 * A read model kept by `startProjector`: subclasses say which topics they read and how one event
 * changes their documents; starting, catching up, read-your-writes waits and closing are shared.
 */
export abstract class Projection {
  private subscription: Subscription | null = null;

  protected constructor(
    protected readonly log: EventLog,
    protected readonly store: ProjectionStore,
    private readonly name: string,
    private readonly topics: string[],
  ) {}

  protected abstract apply(event: StoredEvent): Promise<void>;

  async start(): Promise<void> {
    this.subscription ??= await startProjector({
      log: this.log,
      store: this.store,
      name: this.name,
      topics: this.topics,
      apply: (event) => this.apply(event),
    });
  }

  /** Resolves once the events that were on the log at start are applied. */
  get caughtUp(): Promise<void> {
    return this.started().caughtUp;
  }

  /** Resolves once the projection has applied `event` (and every earlier event of its partition). */
  reached(event: StoredEvent): Promise<void> {
    return this.started().waitFor(event.topic, event.offset, event.partition);
  }

  /** Read-your-writes: waits until every given event is applied here. */
  async settle(events: StoredEvent[]): Promise<void> {
    for (const event of events) await this.reached(event);
  }

  async close(): Promise<void> {
    await this.subscription?.close();
    this.subscription = null;
  }

  private started(): Subscription {
    if (!this.subscription) throw new Error(`the ${this.name} projection has not been started`);
    return this.subscription;
  }
}
