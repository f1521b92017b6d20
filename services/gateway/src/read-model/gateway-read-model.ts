import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { TOPICS, type StoredEvent } from '@thumbforge/contracts';
import {
  addToLedgerPage,
  admitsFact,
  applyBillingFact,
  applyIdempotencyEvent,
  applyJobEvent,
  billingJobOf,
  currentJobView,
  idempotencyRecordId,
  ledgerPageId,
  ledgerPageOf,
  type AccountLedger,
  type IdempotencyRecord,
  type JobBilling,
  type JobView,
  type LedgerEntry,
  type LedgerPage,
} from '@thumbforge/domain';
import {
  allWritten,
  EVENT_LOG,
  foldInto,
  hasFolded,
  OwnerEpochs,
  Projection,
  putStamped,
  stampedBefore,
  type EventLog,
  type FoldedDocument,
  type OwnerEpochDocument,
  type StampedDocument,
} from '@thumbforge/event-log';
import { ReadinessRegistry, hashApiKey } from '@thumbforge/platform';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';

export interface KeyDoc {
  id: string; // SHA-256 of the key
  accountId: string;
}
export interface AccountDoc extends FoldedDocument {
  currentKeyHash: string | null;
  /** The key the current one replaced, whose document is deleted once the current one is written. */
  previousKeyHash?: string | null;
  ledger: AccountLedger | null;
  /** The secret of signed image URLs, encrypted as on the log. */
  urlSigningSecretCiphertext?: string;
}
export type JobDoc = JobView & FoldedDocument;
/** Billing's decision about a job, kept apart from the ledger (see `applyBillingFact`). */
export interface BilledJobDoc extends StampedDocument {
  billing: JobBilling;
}
export type IdempotencyDoc = IdempotencyRecord & FoldedDocument;

function newAccount(id: string): AccountDoc {
  return { id, currentKeyHash: null, previousKeyHash: null, ledger: null };
}

const KEYS = 'gateway_keys';
const ACCOUNTS = 'gateway_accounts';
const JOBS = 'gateway_jobs';
const EPOCHS = 'gateway_epochs';
const IDEMPOTENCY = 'gateway_idempotency_keys';
export const BILLED_JOBS = 'gateway_billed_jobs';
export const LEDGER_PAGES = 'gateway_ledger_pages';
/** Entries per page before pages carried their size in their ids. */
export const LEGACY_LEDGER_PAGE_SIZE = 100;

/** The id an earlier release gave an account's page of `LEGACY_LEDGER_PAGE_SIZE` entries. */
export function legacyLedgerPageId(accountId: string, page: number): string {
  return `${accountId}:${page}`;
}

/**
 * The gateway's read side: API keys (its own facts), accounts' plans and credits (billing's facts
 * folded with the domain ledger), job state (reservation, render and webhook facts) and idempotency
 * keys (its own facts).
 */
@Injectable()
export class GatewayReadModel
  extends Projection
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  constructor(
    @Inject(EVENT_LOG) log: EventLog,
    @Inject(PROJECTION_STORE) store: ProjectionStore,
    private readonly readiness: ReadinessRegistry,
  ) {
    super(
      log,
      store,
      'gateway',
      [TOPICS.gateway, TOPICS.billing, TOPICS.jobs, TOPICS.webhooks],
      [KEYS, ACCOUNTS, JOBS, EPOCHS, IDEMPOTENCY, BILLED_JOBS, LEDGER_PAGES],
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.start();
    this.readiness.track('gateway.read-model', this.caughtUp);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.close();
  }

  private get keys() {
    return this.store.collection<KeyDoc>(KEYS);
  }
  private get accounts() {
    return this.store.collection<AccountDoc>(ACCOUNTS);
  }
  private get jobs() {
    return this.store.collection<JobDoc>(JOBS);
  }
  private get billingEpochs() {
    return new OwnerEpochs(this.store.collection<OwnerEpochDocument>(EPOCHS));
  }
  private get idempotencyKeys() {
    return this.store.collection<IdempotencyDoc>(IDEMPOTENCY);
  }
  private get billedJobs() {
    return this.store.collection<BilledJobDoc>(BILLED_JOBS);
  }
  private get ledgerPages() {
    return this.store.collection<LedgerPage>(LEDGER_PAGES);
  }

  protected async apply(event: StoredEvent): Promise<void> {
    if (event.topic === TOPICS.gateway && event.type === 'gateway.api-key-issued') {
      await this.applyKeyIssued(event);
      return;
    }
    if (event.topic === TOPICS.gateway && event.type === 'gateway.url-signing-secret-issued') {
      const { accountId, secretCiphertext } = event.payload as {
        accountId: string;
        secretCiphertext: string;
      };
      await foldInto(this.accounts, accountId, event, (current) => ({
        ...(current ?? newAccount(accountId)),
        urlSigningSecretCiphertext: secretCiphertext,
      }));
      return;
    }
    if (event.topic === TOPICS.gateway) {
      if (!event.type.startsWith('gateway.idempotency-key-')) return;
      const { accountId, key } = event.payload as { accountId: string; key: string };
      await foldInto(this.idempotencyKeys, idempotencyRecordId(accountId, key), event, (current) => {
        const next = applyIdempotencyEvent(current, event);
        return next && next !== current ? { ...next, id: idempotencyRecordId(accountId, key) } : current;
      });
      return;
    }
    if (event.topic === TOPICS.billing) {
      // Billing's decisions are fenced: one made by a replica that had lost the partition never counts.
      const epochs = this.billingEpochs;
      if (await epochs.observe(event)) return;
      if (event.fence !== undefined && !admitsFact(await epochs.current(event), event)) return;
      // A reservation also starts the job's document, which nothing in the billing fact depends on.
      await allWritten([
        this.applyBillingFact(event),
        event.type === 'billing.credits-reserved' ? this.applyJobEvent(event) : undefined,
      ]);
      return;
    }
    await this.applyJobEvent(event);
  }

  private async applyJobEvent(event: StoredEvent): Promise<void> {
    const jobId = event.correlationId ?? event.aggregateId;
    await foldInto(this.jobs, jobId, event, (current) => {
      const next = applyJobEvent(current, event);
      return next && next !== current ? { ...next, id: jobId } : current;
    });
  }

  /**
   * The job's billing and the history entry are written (side by side) before the account, whose
   * positions then say the whole fact is applied; each of those writes is a no-op when the fact is
   * applied again.
   */
  private async applyBillingFact(event: StoredEvent): Promise<void> {
    const accountId = event.aggregateId;
    const jobId = billingJobOf(event);
    const [job, account] = await Promise.all([
      jobId === undefined ? undefined : this.billedJobs.get(jobId),
      this.accounts.get(accountId),
    ]);
    const before = stampedBefore(job, event)?.billing;
    if (hasFolded(account, event)) {
      // Another writer applied the fact, the job's billing first: the version read above may be from
      // before it, and a later fact of the job would fold onto it while this replica's cache is on.
      if (jobId !== undefined) this.billedJobs.forget?.(jobId);
      return;
    }
    const change = applyBillingFact(account?.ledger ?? undefined, before, event);
    if (!change) return;
    const { entry } = change;
    const seq = change.ledger.entryCount - 1;
    await allWritten([
      change.job &&
        putStamped(this.billedJobs, job, event, { id: change.job.jobId, billing: change.job.billing }),
      entry &&
        this.ledgerPages.update(ledgerPageId(accountId, ledgerPageOf(seq)), (page) =>
          addToLedgerPage(page, accountId, seq, entry),
        ),
    ]);
    await foldInto(this.accounts, accountId, event, (latest) => {
      const ledger = latest?.ledger ?? undefined;
      const next = applyBillingFact(ledger, before, event)?.ledger;
      if (!next || next === ledger) return latest;
      return { ...(latest ?? newAccount(accountId)), ledger: next };
    });
  }

  /**
   * The account's current key hash moves forward only (the account document records how far the
   * gateway topic is folded into it); the key documents follow it: the new one written, the one it
   * replaced deleted, and a key that was already replaced when its event is applied deleted too.
   */
  private async applyKeyIssued(event: StoredEvent): Promise<void> {
    const { accountId, keyHash } = event.payload as { accountId: string; keyHash: string };
    const account = await foldInto(this.accounts, accountId, event, (current) => {
      const base = current ?? newAccount(accountId);
      return { ...base, currentKeyHash: keyHash, previousKeyHash: base.currentKeyHash };
    });
    if (account?.currentKeyHash !== keyHash) {
      await this.keys.delete(keyHash);
      return;
    }
    await this.keys.put({ id: keyHash, accountId });
    if (account.previousKeyHash && account.previousKeyHash !== keyHash) {
      await this.keys.delete(account.previousKeyHash);
    }
  }

  async accountByKey(apiKey: string): Promise<AccountDoc | undefined> {
    const keyHash = hashApiKey(apiKey);
    const key = await this.keys.get(keyHash);
    const account = key ? await this.accounts.get(key.accountId) : undefined;
    // A replaced key's document can outlive the rotation briefly; the account's current key decides.
    return account?.currentKeyHash === keyHash ? account : undefined;
  }

  account(accountId: string): Promise<AccountDoc | undefined> {
    return this.accounts.get(accountId);
  }

  /**
   * A job id just minted at random has no documents yet: on the replica that writes this read model,
   * folding the job's reservation then skips reading them (`ProjectionCollection.expectNew`).
   */
  expectNewJob(jobId: string): void {
    this.jobs.expectNew?.(jobId);
    this.billedJobs.expectNew?.(jobId);
  }

  /** A job's view; one an earlier release stored is read in this release's shape. */
  async job(jobId: string): Promise<JobDoc | undefined> {
    const doc = await this.jobs.get(jobId);
    return doc && currentJobView(doc);
  }

  idempotencyKey(accountId: string, key: string): Promise<IdempotencyDoc | undefined> {
    return this.idempotencyKeys.get(idempotencyRecordId(accountId, key));
  }

  /**
   * The account's ledger history, oldest first. Entries an earlier release wrote, in pages of
   * `LEGACY_LEDGER_PAGE_SIZE` under ids without the size, are read from those pages.
   */
  async ledgerEntries(ledger: AccountLedger): Promise<LedgerEntry[]> {
    const { accountId, entryCount } = ledger;
    const entries: (LedgerEntry | undefined)[] = Array.from({ length: entryCount });
    const fill = (first: number, held: readonly LedgerEntry[]) =>
      held.forEach((entry, i) => {
        if (first + i < entryCount) entries[first + i] ??= entry;
      });
    // Pages `from` to `to` (none when `to` is below `from`) under the ids one page size gives them.
    const read = (from: number, to: number, idOf: (accountId: string, page: number) => string) =>
      Promise.all(
        Array.from({ length: to - from + 1 }, (_, n) => this.ledgerPages.get(idOf(accountId, from + n))),
      );
    const pages = await read(0, ledgerPageOf(entryCount - 1), ledgerPageId);
    pages.forEach((page) => page && fill(page.first, page.entries));
    const missing = entries.indexOf(undefined);
    if (missing !== -1) {
      const from = Math.floor(missing / LEGACY_LEDGER_PAGE_SIZE);
      const legacy = await read(
        from,
        Math.floor((entryCount - 1) / LEGACY_LEDGER_PAGE_SIZE),
        legacyLedgerPageId,
      );
      legacy.forEach((page, n) => page && fill((from + n) * LEGACY_LEDGER_PAGE_SIZE, page.entries));
    }
    return entries.filter((entry) => entry !== undefined);
  }

  async billedJobBillings(): Promise<Map<string, JobBilling>> {
    return new Map((await this.billedJobs.find({})).map((job) => [job.id, job.billing]));
  }

  async allAccounts(): Promise<AccountDoc[]> {
    return this.accounts.find({});
  }

  async allJobs(): Promise<JobDoc[]> {
    return (await this.jobs.find({})).map((doc) => currentJobView(doc));
  }
}
