import { Inject, Injectable } from '@nestjs/common';
import { TOPICS, type EventEnvelope, type StoredEvent } from '@thumbforge/contracts';
import { applyBillingEvent, isBillingFact, type AccountLedger } from '@thumbforge/domain';
import { EVENT_LOG, startProjector, type EventLog, type Subscription } from '@thumbforge/event-log';
import {
  PROJECTION_STORE,
  type ProjectionCollection,
  type ProjectionStore,
} from '@thumbforge/projection-store';
import { KeyedLock } from './keyed-lock.js';

export const LEDGER_COLLECTION = 'billing_accounts';
export type LedgerDocument = AccountLedger & { id: string };

/**
 * Billing's own state: the ledger of every account, folded from the billing facts on the log into the
 * projection store. Billing decides from this projection and writes facts back to the log, so each
 * write waits until the projection has applied it: the next decision about the account then sees it.
 */
@Injectable()
export class LedgerProjection {
  private subscription: Subscription | null = null;
  private readonly locks = new KeyedLock();

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(PROJECTION_STORE) private readonly store: ProjectionStore,
  ) {}

  private get documents(): ProjectionCollection<LedgerDocument> {
    return this.store.collection<LedgerDocument>(LEDGER_COLLECTION);
  }

  async start(): Promise<void> {
    this.subscription ??= await startProjector({
      log: this.log,
      store: this.store,
      name: 'billing',
      topics: [TOPICS.billing],
      apply: (event) => this.apply(event),
    });
  }

  /** Resolves once the facts that were on the log at start are in the projection. */
  get caughtUp(): Promise<void> {
    return this.started().caughtUp;
  }

  async close(): Promise<void> {
    await this.subscription?.close();
    this.subscription = null;
  }

  ledger(accountId: string): Promise<AccountLedger | undefined> {
    return this.documents.get(accountId);
  }

  /** One decision at a time per account: read the ledger, decide, commit, then the next. */
  exclusive<T>(accountId: string, task: () => Promise<T>): Promise<T> {
    return this.locks.run(accountId, task);
  }

  /** Resolves once the projection has read the log up to `event` (every earlier fact of its partition). */
  reached(event: StoredEvent): Promise<void> {
    return this.started().waitFor(event.topic, event.offset, event.partition);
  }

  /** Appends facts about one account and resolves once the projection has applied them. */
  async commit(accountId: string, facts: EventEnvelope[]): Promise<StoredEvent[]> {
    if (facts.length === 0) return [];
    const stored = await this.log.append(TOPICS.billing, facts, { key: accountId });
    for (const event of stored) await this.reached(event);
    return stored;
  }

  private started(): Subscription {
    if (!this.subscription) throw new Error('the billing ledger projection has not been started');
    return this.subscription;
  }

  private async apply(event: StoredEvent): Promise<void> {
    if (!isBillingFact(event)) return;
    const accountId = (event.payload as { accountId?: string }).accountId ?? event.aggregateId;
    const current = await this.documents.get(accountId);
    const next = applyBillingEvent(current, event);
    if (next && next !== current) await this.documents.put({ ...next, id: accountId });
  }
}
