import { makeEvent, TOPICS, type JobSpec, type Plan, type StoredEvent } from '@thumbforge/contracts';
import { exampleJobSpec } from '@thumbforge/contracts/testing';
import { isBillingFact } from '@thumbforge/domain';
import type { EventLog } from '@thumbforge/event-log';
import { ReadinessRegistry } from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { BillingConsumer } from '../src/billing.consumer.js';
import { ChangeAccountUseCase } from '../src/change-account/change-account.usecase.js';
import { LedgerProjection } from '../src/ledger/ledger-projection.js';
import { OpenAccountUseCase } from '../src/open-account/open-account.usecase.js';
import { ReserveCreditsUseCase } from '../src/reserve-credits/reserve-credits.usecase.js';
import { SettleCreditsUseCase } from '../src/settle-credits/settle-credits.usecase.js';
import { FakeClock, MemoryEventLog, silentLogger } from './fakes.js';

export const ACCOUNT = 'acc_TEST';

/** Billing wired by hand on fake ports, the way Nest wires it from BillingModule. */
export function billing<L extends EventLog = MemoryEventLog>(
  now = '2026-04-10T12:00:00.000Z',
  log: L = new MemoryEventLog() as EventLog as L,
) {
  const store = new MemoryProjectionStore();
  const clock = new FakeClock(new Date(now));
  const readiness = new ReadinessRegistry();
  const ledgers = new LedgerProjection(log, store);
  const openAccount = new OpenAccountUseCase(ledgers, clock);
  const changeAccount = new ChangeAccountUseCase(ledgers, clock, silentLogger);
  const reserveCredits = new ReserveCreditsUseCase(ledgers, clock, silentLogger);
  const settleCredits = new SettleCreditsUseCase(ledgers, clock, silentLogger);
  const consumer = new BillingConsumer(
    log,
    ledgers,
    readiness,
    silentLogger,
    openAccount,
    changeAccount,
    reserveCredits,
    settleCredits,
  );
  return {
    log,
    store,
    clock,
    readiness,
    ledgers,
    openAccount,
    changeAccount,
    reserveCredits,
    settleCredits,
    consumer,
  };
}
export type Billing = ReturnType<typeof billing<MemoryEventLog>>;

let jobs = 0;
export function jobSpec(overrides: Partial<JobSpec> = {}): JobSpec {
  return exampleJobSpec({ jobId: `job_${++jobs}`, accountId: ACCOUNT, ...overrides });
}

/** Starts the projection and opens the account, optionally with credits already used. */
export async function withAccount(b: Billing, plan: Plan, used = 0): Promise<void> {
  await b.ledgers.start();
  await b.openAccount.execute({ commandId: 'evt_open', accountId: ACCOUNT, plan, apiAccess: true });
  if (used > 0) {
    const job = jobSpec({ cost: used });
    await b.reserveCredits.execute({ commandId: 'evt_used', accountId: ACCOUNT, job });
    await b.settleCredits.execute({
      commandId: 'evt_used_render',
      accountId: ACCOUNT,
      jobId: job.jobId,
      outcome: 'captured',
    });
  }
}

/** The billing facts on the log, without commands. */
export function facts(b: Billing): StoredEvent[] {
  return b.log.events(TOPICS.billing).filter(isBillingFact);
}

export function renderSucceeded(job: JobSpec, id?: string) {
  return makeEvent(
    'render.succeeded',
    job.jobId,
    {
      jobId: job.jobId,
      generationId: job.generationId,
      accountId: job.accountId,
      format: job.format,
      outputFormat: job.outputFormat,
      width: 1280,
      height: 720,
      bytes: 100,
      resultKey: `results/${job.jobId}.webp`,
      imageUrl: null,
      webhookUrl: job.webhookUrl,
    },
    { correlationId: job.jobId, ...(id ? { id } : {}) },
  );
}

export function renderFailed(job: JobSpec, error = 'Render timed out') {
  return makeEvent(
    'render.failed',
    job.jobId,
    { jobId: job.jobId, accountId: job.accountId, error, webhookUrl: job.webhookUrl },
    { correlationId: job.jobId },
  );
}

/** Resolves once `predicate` holds for the log; the consumer works asynchronously. */
export async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setImmediate(resolve));
}
