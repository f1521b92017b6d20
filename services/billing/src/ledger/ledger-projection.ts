import { Inject, Injectable } from '@nestjs/common';
import { TOPICS, type EventEnvelope, type StoredEvent } from '@thumbforge/contracts';
import { admitsFact, applyBillingEvent, isBillingFact, type AccountLedger } from '@thumbforge/domain';
import {
  EVENT_LOG,
  foldInto,
  OwnerEpochs,
  Projection,
  unfolded,
  type EventLog,
  type FoldedDocument,
  type OwnerEpochDocument,
} from '@thumbforge/event-log';
import {
  PROJECTION_STORE,
  type ProjectionCollection,
  type ProjectionStore,
} from '@thumbforge/projection-store';
import { KeyedLock } from './keyed-lock.js';

export const LEDGER_COLLECTION = 'billing_accounts';
export type LedgerDocument = AccountLedger & FoldedDocument;
/** Per partition of the billing topic: the current owner epoch (offset of its latest marker). */
export const EPOCH_COLLECTION = 'billing_epochs';

/**
 * Billing's own state: the ledger of every account, folded from the billing facts on the log into the
 * projection store. Billing decides from this projection and writes facts back to the log, so each
 * write waits until the projection has applied it: the next decision about the account then sees it.
 */
@Injectable()
export class LedgerProjection extends Projection {
  private readonly locks = new KeyedLock();

  constructor(@Inject(EVENT_LOG) log: EventLog, @Inject(PROJECTION_STORE) store: ProjectionStore) {
    super(log, store, 'billing', [TOPICS.billing]);
  }

  private get documents(): ProjectionCollection<LedgerDocument> {
    return this.store.collection<LedgerDocument>(LEDGER_COLLECTION);
  }

  private get epochs(): OwnerEpochs {
    return new OwnerEpochs(this.store.collection<OwnerEpochDocument>(EPOCH_COLLECTION));
  }

  async ledger(accountId: string): Promise<AccountLedger | undefined> {
    return unfolded(await this.documents.get(accountId));
  }

  /** One decision at a time per account: read the ledger, decide, commit, then the next. */
  exclusive<T>(accountId: string, task: () => Promise<T>): Promise<T> {
    return this.locks.run(accountId, task);
  }

  /** The owner epoch of a partition of the billing topic, as folded so far. */
  epoch(partition: number): Promise<number | undefined> {
    return this.epochs.current({ topic: TOPICS.billing, partition });
  }

  /**
   * Appends facts about one account, stamped with the writer's owner epoch when it has one, and
   * resolves once the projection has applied them (or dropped them as fenced out).
   */
  async commit(accountId: string, facts: EventEnvelope[], fence?: number): Promise<StoredEvent[]> {
    if (facts.length === 0) return [];
    const stamped = fence === undefined ? facts : facts.map((fact) => ({ ...fact, fence }));
    const stored = await this.log.append(TOPICS.billing, stamped, { key: accountId });
    await this.settle(stored);
    return stored;
  }

  protected async apply(event: StoredEvent): Promise<void> {
    if (await this.epochs.observe(event)) return;
    if (!isBillingFact(event)) return;
    // In log order: a fact stamped with an epoch before the partition's latest one is a stale writer's.
    if (event.fence !== undefined && !admitsFact(await this.epochs.current(event), event)) return;
    const accountId = (event.payload as { accountId?: string }).accountId ?? event.aggregateId;
    await foldInto(this.documents, accountId, event, (current) => {
      const next = applyBillingEvent(current, event);
      return next && next !== current ? { ...next, id: accountId } : current;
    });
  }
}
