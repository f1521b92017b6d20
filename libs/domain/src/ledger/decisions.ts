import {
  ERROR_CODES,
  makeEvent,
  newId,
  PLAN_TERMS,
  type AccountChangeRequestedV1,
  type AccountOpenRequestedV1,
  type Rejection,
  type ReservationRequestedV1,
  type ThumbforgeEvent,
} from '@thumbforge/contracts';
import { applyBillingFact, remaining, type AccountLedger, type JobBilling } from './ledger.js';
import { calendarPeriod, periodHasEnded } from './period.js';

/**
 * What the decided facts answer. With `causationId` (the command's event id) every fact gets the id
 * `${causationId}:<suffix>`, so deciding the same command again yields byte-identical facts; without it
 * the facts get fresh ids.
 */
export interface DecisionOptions {
  causationId?: string;
  /** occurredAt of the facts, where the decision takes no `now` of its own. */
  at?: Date;
}

export const GENERATION_LIMIT_EXCEEDED: Rejection = {
  status: 429,
  code: ERROR_CODES.GENERATION_LIMIT_EXCEEDED,
  error: 'Generation limit exceeded',
};

function factOptions(suffix: string, correlationId: string, at: Date, options: DecisionOptions) {
  return {
    id: options.causationId ? `${options.causationId}:${suffix}` : newId('evt', at.getTime()),
    causationId: options.causationId ?? null,
    correlationId,
    occurredAt: at,
  };
}

/** Opens an account with its first period; an account that exists already is left alone. */
export function decideOpenAccount(
  state: AccountLedger | undefined,
  cmd: AccountOpenRequestedV1,
  now: Date,
  options: DecisionOptions = {},
): ThumbforgeEvent[] {
  if (state) return [];
  const { accountId, plan, apiAccess } = cmd;
  return [
    makeEvent(
      'billing.account-opened',
      accountId,
      { accountId, plan, apiAccess },
      factOptions('account-opened', accountId, now, options),
    ),
    makeEvent(
      'billing.period-started',
      accountId,
      { accountId, ...calendarPeriod(now), allowance: PLAN_TERMS[plan].monthlyCredits },
      factOptions('period-started', accountId, now, options),
    ),
  ];
}

/**
 * Changes plan and/or API access of an existing account. A plan change applies at once: the new
 * plan's allowance replaces the old one for the rest of the current period and usage so far still
 * counts, so an upgrade frees credits immediately and a downgrade can leave nothing until the reset.
 * Unknown accounts are left alone (the gateway checks accounts before asking).
 */
export function decideChangeAccount(
  state: AccountLedger | undefined,
  cmd: AccountChangeRequestedV1,
  now: Date,
  options: DecisionOptions = {},
): ThumbforgeEvent[] {
  if (!state) return [];
  const payload = {
    accountId: state.accountId,
    ...(cmd.plan !== undefined ? { plan: cmd.plan } : {}),
    ...(cmd.apiAccess !== undefined ? { apiAccess: cmd.apiAccess } : {}),
  };
  return [
    makeEvent(
      'billing.account-changed',
      state.accountId,
      payload,
      factOptions('account-changed', state.accountId, now, options),
    ),
  ];
}

/**
 * Reserves the job's cost, or rejects it when the period's remaining credits cannot cover it. The first
 * request of a new calendar month first starts the new period. A job decided before (`decided`, its
 * billing so far) yields nothing.
 */
export function decideReservation(
  state: AccountLedger,
  decided: JobBilling | undefined,
  cmd: ReservationRequestedV1,
  now: Date,
  options: DecisionOptions = {},
): ThumbforgeEvent[] {
  const { job } = cmd;
  if (decided !== undefined) return [];
  const accountId = state.accountId;
  const facts: ThumbforgeEvent[] = [];
  let ledger = state;
  if (periodHasEnded(state, now)) {
    const started = makeEvent(
      'billing.period-started',
      accountId,
      { accountId, ...calendarPeriod(now), allowance: PLAN_TERMS[state.plan].monthlyCredits },
      factOptions('period-started', job.jobId, now, options),
    );
    facts.push(started);
    ledger = applyBillingFact(ledger, undefined, started)!.ledger;
  }
  const amount = job.cost;
  const available = remaining(ledger);
  if (available >= amount) {
    facts.push(
      makeEvent(
        'billing.credits-reserved',
        accountId,
        { accountId, jobId: job.jobId, amount, job },
        factOptions('reserved', job.jobId, now, options),
      ),
    );
  } else {
    facts.push(
      makeEvent(
        'billing.credits-rejected',
        accountId,
        { accountId, jobId: job.jobId, amount, remaining: available, reason: GENERATION_LIMIT_EXCEEDED },
        factOptions('rejected', job.jobId, now, options),
      ),
    );
  }
  return facts;
}

/**
 * Settles a job's open reservation: `captured` moves it to used, `released` gives it back. A job
 * without an open reservation (unknown, or settled before) yields nothing, so a re-delivered render
 * outcome never charges or refunds twice.
 */
export function decideSettlement(
  state: AccountLedger,
  jobId: string,
  outcome: 'captured' | 'released',
  reason?: string,
  options: DecisionOptions = {},
): ThumbforgeEvent[] {
  const amount = state.reservations[jobId];
  if (amount === undefined) return [];
  const accountId = state.accountId;
  const meta = factOptions(outcome, jobId, options.at ?? new Date(), options);
  if (outcome === 'captured') {
    return [makeEvent('billing.credits-captured', accountId, { accountId, jobId, amount }, meta)];
  }
  return [
    makeEvent(
      'billing.credits-released',
      accountId,
      { accountId, jobId, amount, reason: reason ?? 'released' },
      meta,
    ),
  ];
}
