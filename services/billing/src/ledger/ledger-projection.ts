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
  OwnerEpochs,
  Projection,
  putStamped,
  stampedBefore,
  unfolded,
  type EventLog,
  type FoldedDocument,
  type OwnerEpochDocument,
  type StampedDocument,
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
export interface JobBillingDocument extends StampedDocument {
  accountId: string;
  billing: JobBilling;
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
  /** Per partition of the billing topic: the last event this process folded and the epoch after it. */
  private readonly folded = new Map<number, { offset: number; epoch: number | undefined }>();
  /** Per partition of the billing topic: the offset of the last fact this process appended there. */
  private readonly appended = new Map<number, number>();

  constructor(@Inject(EVENT_LOG) log: EventLog, @Inject(PROJECTION_STORE) store: ProjectionStore) {
    super(
      log,
      store,
      'billing',
      [TOPICS.billing],
      [LEDGER_COLLECTION, JOB_BILLING_COLLECTION, EPOCH_COLLECTION],
    );
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

  /**
   * The owner epoch of a partition of the billing topic, as folded so far. Once this process has
   * folded past the last fact it appended there (the check after a decision, on the projection's
   * writer), its own record says whether a newer marker came before that fact, without a read.
   */
  epoch(partition: number): Promise<number | undefined> {
    const last = this.folded.get(partition);
    const appended = this.appended.get(partition);
    if (last && appended !== undefined && last.offset >= appended) return Promise.resolve(last.epoch);
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
    for (const { partition, offset } of stored) {
      this.appended.set(partition, Math.max(offset, this.appended.get(partition) ?? -1));
    }
    await this.settle(stored);
    return stored;
  }

  protected async apply(event: StoredEvent): Promise<void> {
    if (await this.epochs.observe(event)) {
      this.remember(event, event.offset);
      return;
    }
    let epoch = this.knownEpochBefore(event);
    if (isBillingFact(event)) {
      // In log order: a fact stamped with an epoch before the partition's latest one is a stale writer's.
      if (event.fence !== undefined) {
        if (epoch === UNKNOWN) epoch = await this.epochs.current(event);
        if (!admitsFact(epoch, event)) return this.remember(event, epoch);
      }
      await this.fold(event);
    }
    this.remember(event, epoch);
  }

  /** Folds an admitted fact: the job's billing first, the ledger last (see `JobBillingDocument`). */
  private async fold(event: StoredEvent): Promise<void> {
    const accountId = billingAccountOf(event);
    const jobId = billingJobOf(event);
    const [job, current] = await Promise.all([
      jobId === undefined ? undefined : this.jobs.get(jobId),
      this.documents.get(accountId),
    ]);
    const before = stampedBefore(job, event)?.billing;
    const changeOf = (doc: LedgerDocument | undefined) => {
      const ledger = unfolded(doc);
      const change = applyBillingFact(ledger, before, event);
      return {
        change,
        next: change && change.ledger !== ledger ? { ...change.ledger, id: accountId } : doc,
      };
    };
    if (hasFolded(current, event)) {
      // Another writer applied the fact, the job's document first: the version read above may be
      // from before it, and would stay this replica's answer (`jobBilling`) while its cache is on.
      if (jobId !== undefined) this.jobs.forget?.(jobId);
      return;
    }
    const change = changeOf(current).change?.job;
    // The job first, the ledger last: the ledger's positions then say the whole fact is applied.
    if (change)
      await putStamped(this.jobs, job, event, { id: change.jobId, accountId, billing: change.billing });
    await foldInto(this.documents, accountId, event, (latest) => changeOf(latest).next);
  }

  /**
   * The partition's epoch before `event`, when this process folded the event right before it: an
   * epoch is a function of the partition's log up to an offset, so that record is exact and saves a
   * database read per stamped fact. Otherwise (first event, a restart, the lease back from another
   * writer) only the store's epoch document can say.
   */
  private knownEpochBefore(event: StoredEvent): number | undefined | typeof UNKNOWN {
    const last = this.folded.get(event.partition);
    return last?.offset === event.offset - 1 ? last.epoch : UNKNOWN;
  }

  private remember(event: StoredEvent, epoch: number | undefined | typeof UNKNOWN): void {
    if (epoch === UNKNOWN) this.folded.delete(event.partition);
    else this.folded.set(event.partition, { offset: event.offset, epoch });
  }
}

const UNKNOWN = Symbol('unknown epoch');
