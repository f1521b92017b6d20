import { PLAN_TERMS, type EventEnvelope, type Plan, type ThumbforgeEvent } from '@thumbforge/contracts';
import { calendarPeriod, periodHasEnded } from './period.js';

export type LedgerEntryKind = 'period-started' | 'reserved' | 'captured' | 'released';

export interface LedgerEntry {
  /** Id of the billing fact this entry records. */
  eventId: string;
  kind: LedgerEntryKind;
  /** null for a period start. */
  jobId: string | null;
  /** Credits moved; for a period start, the allowance granted. */
  amount: number;
  /** The fact's occurredAt. */
  at: string;
}

/**
 * One account's credit ledger: the fold of its billing facts. Reservations still open when a new month
 * starts stay held in the new period and are captured or released there, so a job that straddles the
 * month boundary is charged exactly once.
 */
export interface AccountLedger {
  accountId: string;
  plan: Plan;
  apiAccess: boolean;
  /** ISO 8601 UTC, the calendar month [periodStart, periodEnd). */
  periodStart: string;
  periodEnd: string;
  allowance: number;
  used: number;
  reserved: number;
  /** Open reservations: jobId → amount. */
  reservations: Record<string, number>;
  /** Jobs whose reservation was settled. */
  settled: Record<string, 'captured' | 'released'>;
  /** Jobs whose reservation was refused: a re-sent command is answered by the earlier decision. */
  rejectedJobs: Record<string, true>;
  /** Oldest first. */
  entries: LedgerEntry[];
}

/** Ledgers by accountId. */
export type LedgerState = Record<string, AccountLedger>;

export interface Credits {
  allowance: number;
  used: number;
  reserved: number;
  remaining: number;
  periodStart: string;
  periodEnd: string;
}

const BILLING_FACTS = new Set<string>([
  'billing.account-opened',
  'billing.account-changed',
  'billing.period-started',
  'billing.credits-reserved',
  'billing.credits-rejected',
  'billing.credits-captured',
  'billing.credits-released',
]);

/** Whether an envelope is a billing fact the ledger folds (commands and other types are not). */
export function isBillingFact(event: EventEnvelope): boolean {
  return BILLING_FACTS.has(event.type);
}

function entry(
  event: EventEnvelope,
  kind: LedgerEntryKind,
  jobId: string | null,
  amount: number,
): LedgerEntry {
  return { eventId: event.id, kind, jobId, amount, at: event.occurredAt };
}

function withoutKey<T>(record: Record<string, T>, key: string): Record<string, T> {
  const { [key]: _removed, ...rest } = record;
  return rest;
}

/**
 * Applies one billing fact to an account's ledger and returns the new ledger. Commands, unknown types,
 * facts for an account that was never opened and re-applied facts leave the ledger as it is and return
 * the very same object, so callers can detect "nothing changed" by identity.
 */
export function applyBillingEvent(
  state: AccountLedger | undefined,
  event: EventEnvelope,
): AccountLedger | undefined {
  if (!isBillingFact(event)) return state;
  const fact = event as ThumbforgeEvent;
  if (fact.type === 'billing.account-opened') {
    if (state) return state;
    const { accountId, plan, apiAccess } = fact.payload;
    return {
      accountId,
      plan,
      apiAccess,
      ...calendarPeriod(new Date(fact.occurredAt)),
      allowance: PLAN_TERMS[plan].monthlyCredits,
      used: 0,
      reserved: 0,
      reservations: {},
      settled: {},
      rejectedJobs: {},
      entries: [],
    };
  }
  if (!state) return undefined;

  switch (fact.type) {
    case 'billing.account-changed': {
      const { plan, apiAccess } = fact.payload;
      // A plan change takes effect at once: the new plan's allowance applies to the current period.
      return {
        ...state,
        ...(plan !== undefined ? { plan, allowance: PLAN_TERMS[plan].monthlyCredits } : {}),
        ...(apiAccess !== undefined ? { apiAccess } : {}),
      };
    }
    case 'billing.period-started': {
      if (state.entries.some((e) => e.eventId === fact.id)) return state;
      const { periodStart, periodEnd, allowance } = fact.payload;
      return {
        ...state,
        periodStart,
        periodEnd,
        allowance,
        used: 0,
        entries: [...state.entries, entry(fact, 'period-started', null, allowance)],
      };
    }
    case 'billing.credits-reserved': {
      const { jobId, amount } = fact.payload;
      if (jobId in state.reservations || jobId in state.settled) return state;
      return {
        ...state,
        reserved: state.reserved + amount,
        reservations: { ...state.reservations, [jobId]: amount },
        entries: [...state.entries, entry(fact, 'reserved', jobId, amount)],
      };
    }
    case 'billing.credits-rejected': {
      const { jobId } = fact.payload;
      if (state.rejectedJobs[jobId]) return state;
      return { ...state, rejectedJobs: { ...state.rejectedJobs, [jobId]: true } };
    }
    case 'billing.credits-captured':
    case 'billing.credits-released': {
      const { jobId } = fact.payload;
      const held = state.reservations[jobId];
      if (held === undefined) return state;
      const captured = fact.type === 'billing.credits-captured';
      return {
        ...state,
        used: captured ? state.used + held : state.used,
        reserved: state.reserved - held,
        reservations: withoutKey(state.reservations, jobId),
        settled: { ...state.settled, [jobId]: captured ? 'captured' : 'released' },
        entries: [...state.entries, entry(fact, captured ? 'captured' : 'released', jobId, held)],
      };
    }
    default:
      return state;
  }
}

/** The ledgers of every account, folded from billing facts in log order. */
export function foldLedger(events: Iterable<EventEnvelope>): LedgerState {
  const state: LedgerState = {};
  for (const event of events) {
    if (!isBillingFact(event)) continue;
    const accountId = (event.payload as { accountId?: string }).accountId ?? event.aggregateId;
    const next = applyBillingEvent(state[accountId], event);
    if (next) state[accountId] = next;
  }
  return state;
}

/** Credits still available in the ledger's period: never negative, even after a downgrade. */
export function remaining(ledger: AccountLedger): number {
  return Math.max(0, ledger.allowance - ledger.used - ledger.reserved);
}

/**
 * Credits as seen at `now`. Once the period has ended, the account is shown in the month that the
 * next reservation will start: the plan's full allowance, nothing used, open reservations still held.
 */
export function creditsAt(ledger: AccountLedger, now: Date): Credits {
  if (!periodHasEnded(ledger, now)) {
    const { allowance, used, reserved, periodStart, periodEnd } = ledger;
    return { allowance, used, reserved, remaining: remaining(ledger), periodStart, periodEnd };
  }
  const allowance = PLAN_TERMS[ledger.plan].monthlyCredits;
  const reserved = ledger.reserved;
  return {
    allowance,
    used: 0,
    reserved,
    remaining: Math.max(0, allowance - reserved),
    ...calendarPeriod(now),
  };
}
