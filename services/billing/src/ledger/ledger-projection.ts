import { Inject, Injectable } from '@nestjs/common';
import { TOPICS, type EventEnvelope, type StoredEvent } from '@thumbforge/contracts';
import {
  admitsFact,
  applyBillingFact,
  billingAccountOf,
  billingJobOf,
  isBillingFact,
  type AccountLedger,
  type JobBilling,
} from '@thumbforge/domain';
import {
  EVENT_LOG,
  foldInto,
  hasFolded,
  logPosition,
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
/** Each job's billing, apart from the ledger so that the ledger stays the size of what a decision needs. */
export const JOB_BILLING_COLLECTION = 'billing_jobs';
export interface JobBillingDocument {
  id: string;
  accountId: string;
  billing: JobBilling;
  /**
   * Where the fact that set it sits in the log (`logPosition`): applied again after a crash, that fact
   * finds the job as it left it. Not its id: a duplicate appended later has the same id, and must find
   * the job decided.
   */
  setBy: string;
}
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

  private get jobs(): ProjectionCollection<JobBillingDocument> {
    return this.store.collection<JobBillingDocument>(JOB_BILLING_COLLECTION);
  }

  async ledger(accountId: string): Promise<AccountLedger | undefined> {
    return unfolded(await this.documents.get(accountId));
  }

  /** What billing has decided about a job so far; undefined before its reservation or rejection. */
  async jobBilling(jobId: string): Promise<JobBilling | undefined> {
    return (await this.jobs.get(jobId))?.billing;
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
    const accountId = billingAccountOf(event);
    const jobId = billingJobOf(event);
    const job = jobId === undefined ? undefined : await this.jobs.get(jobId);
    // A job written by this very fact (before a crash kept its ledger from being written) is as it was.
    const before = job?.setBy === logPosition(event) ? undefined : job?.billing;
    const fold = (current: LedgerDocument | undefined) => {
      const ledger = unfolded(current);
      const change = applyBillingFact(ledger, before, event);
      return {
        change,
        next: change && change.ledger !== ledger ? { ...change.ledger, id: accountId } : current,
      };
    };
    // The job first, the ledger last: the ledger's positions then say the whole fact is applied.
    const current = await this.documents.get(accountId);
    if (hasFolded(current, event)) return;
    const change = fold(current).change?.job;
    if (change && job?.setBy !== logPosition(event)) {
      await this.jobs.put({
        id: change.jobId,
        accountId,
        billing: change.billing,
        setBy: logPosition(event),
      });
    }
    await foldInto(this.documents, accountId, event, (latest) => fold(latest).next);
  }
}
