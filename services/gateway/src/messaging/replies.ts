import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { TOPICS, type EventType, type StoredEvent } from '@thumbforge/contracts';
import { FactAdmission } from '@thumbforge/domain';
import { EVENT_LOG, type EventLog, type Subscription } from '@thumbforge/event-log';
import { ReadinessRegistry } from '@thumbforge/platform';

interface Waiter {
  types: ReadonlySet<string>;
  resolve(event: StoredEvent): void;
}

export class ReplyTimeoutError extends Error {
  constructor(correlationId: string, types: readonly string[]) {
    super(`no ${types.join(' or ')} for ${correlationId} in time`);
  }
}

/**
 * Request/reply over the log: a live tail of the topics that answer the gateway's commands, matched by
 * correlation id. A waiter is registered before its command is appended, so no reply can be missed.
 * Every gateway replica tails on its own, so the reply reaches the replica holding the HTTP request.
 */
@Injectable()
export class Replies implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private subscription: Subscription | null = null;
  private readonly admission = new FactAdmission();

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly readiness: ReadinessRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.log.subscribe({
      group: `gateway-replies-${randomUUID()}`,
      topics: [TOPICS.billing, TOPICS.assets, TOPICS.jobs, TOPICS.gateway],
      from: 'end',
      handle: async (event) => this.dispatch(event),
    });
    this.readiness.track('gateway.replies', this.subscription.caughtUp);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.subscription?.close();
  }

  private dispatch(event: StoredEvent): void {
    // A decision a fenced-out billing or asset replica made is no answer: its partition's owner decides again.
    if (!this.admission.admits(event)) return;
    const waiting = event.correlationId ? this.waiters.get(event.correlationId) : undefined;
    if (!waiting) return;
    for (const waiter of waiting) if (waiter.types.has(event.type)) waiter.resolve(event);
  }

  /** Starts waiting for the first of `types` correlated to `correlationId`. */
  expect(correlationId: string, types: readonly EventType[], timeoutMs: number): Promise<StoredEvent> {
    return new Promise<StoredEvent>((resolve, reject) => {
      const waiting = this.waiters.get(correlationId) ?? new Set<Waiter>();
      this.waiters.set(correlationId, waiting);
      const done = () => {
        clearTimeout(timer);
        waiting.delete(waiter);
        if (waiting.size === 0) this.waiters.delete(correlationId);
      };
      const waiter: Waiter = {
        types: new Set(types),
        resolve: (event) => {
          done();
          resolve(event);
        },
      };
      const timer = setTimeout(() => {
        done();
        reject(new ReplyTimeoutError(correlationId, types));
      }, timeoutMs);
      waiting.add(waiter);
    });
  }
}
