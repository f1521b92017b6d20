import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { applyBillingEvent, applyJobEvent, type AccountLedger, type JobView } from '@thumbforge/domain';
import { EVENT_LOG, Projection, type EventLog } from '@thumbforge/event-log';
import { ReadinessRegistry, hashApiKey } from '@thumbforge/platform';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';

export interface KeyDoc {
  id: string; // SHA-256 of the key
  accountId: string;
}
export interface AccountDoc {
  id: string;
  currentKeyHash: string | null;
  ledger: AccountLedger | null;
}
export type JobDoc = JobView & { id: string };

const KEYS = 'gateway_keys';
const ACCOUNTS = 'gateway_accounts';
const JOBS = 'gateway_jobs';

/**
 * The gateway's read side: API keys (its own facts), accounts' plans and credits (billing's facts
 * folded with the domain ledger), and job state (reservation, render and webhook facts).
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
    super(log, store, 'gateway', [TOPICS.gateway, TOPICS.billing, TOPICS.jobs, TOPICS.webhooks]);
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

  protected async apply(event: StoredEvent): Promise<void> {
    if (event.topic === TOPICS.gateway && event.type === 'gateway.api-key-issued') {
      const { accountId, keyHash } = event.payload as { accountId: string; keyHash: string };
      const account = (await this.accounts.get(accountId)) ?? {
        id: accountId,
        currentKeyHash: null,
        ledger: null,
      };
      if (account.currentKeyHash) await this.keys.delete(account.currentKeyHash);
      await this.keys.put({ id: keyHash, accountId });
      await this.accounts.put({ ...account, currentKeyHash: keyHash });
      return;
    }
    if (event.topic === TOPICS.billing) {
      const accountId = event.aggregateId;
      const account = (await this.accounts.get(accountId)) ?? {
        id: accountId,
        currentKeyHash: null,
        ledger: null,
      };
      const ledger = applyBillingEvent(account.ledger ?? undefined, event) ?? null;
      if (ledger !== account.ledger) await this.accounts.put({ ...account, ledger });
    }
    const jobId = event.correlationId ?? event.aggregateId;
    if (event.topic === TOPICS.billing && event.type !== 'billing.credits-reserved') return;
    const current = await this.jobs.get(jobId);
    const next = applyJobEvent(current, event);
    if (next && next !== current) await this.jobs.put({ ...next, id: next.jobId });
  }

  async accountByKey(apiKey: string): Promise<AccountDoc | undefined> {
    const key = await this.keys.get(hashApiKey(apiKey));
    return key ? this.accounts.get(key.accountId) : undefined;
  }

  account(accountId: string): Promise<AccountDoc | undefined> {
    return this.accounts.get(accountId);
  }

  job(jobId: string): Promise<JobDoc | undefined> {
    return this.jobs.get(jobId);
  }

  async allAccounts(): Promise<AccountDoc[]> {
    return this.accounts.find({});
  }

  async allJobs(): Promise<JobDoc[]> {
    return this.jobs.find({});
  }
}
