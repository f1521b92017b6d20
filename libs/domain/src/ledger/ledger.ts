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

function openedLedger(fact: Extract<ThumbforgeEvent, { type: 'billing.account-opened' }>): AccountLedger {
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

/**
 * Folds one fact of an opened account into `ledger` in place and answers whether it changed; a fact
 * that changes nothing (re-applied, or a settlement of no open reservation) leaves it untouched.
 */
function foldFact(ledger: AccountLedger, fact: ThumbforgeEvent): boolean {
  switch (fact.type) {
    case 'billing.account-changed': {
      const { plan, apiAccess } = fact.payload;
      // A plan change takes effect at once: the new plan's allowance applies to the current period.
      if (plan !== undefined) {
        ledger.plan = plan;
        ledger.allowance = PLAN_TERMS[plan].monthlyCredits;
      }
      if (apiAccess !== undefined) ledger.apiAccess = apiAccess;
      return true;
    }
    case 'billing.period-started': {
      if (ledger.entries.some((e) => e.eventId === fact.id)) return false;
      const { periodStart, periodEnd, allowance } = fact.payload;
      ledger.periodStart = periodStart;
      ledger.periodEnd = periodEnd;
      ledger.allowance = allowance;
      ledger.used = 0;
      ledger.entries.push(entry(fact, 'period-started', null, allowance));
      return true;
    }
    case 'billing.credits-reserved': {
      const { jobId, amount } = fact.payload;
      if (jobId in ledger.reservations || jobId in ledger.settled) return false;
      ledger.reserved += amount;
      ledger.reservations[jobId] = amount;
      ledger.entries.push(entry(fact, 'reserved', jobId, amount));
      return true;
    }
    case 'billing.credits-rejected': {
      const { jobId } = fact.payload;
      if (ledger.rejectedJobs[jobId]) return false;
      ledger.rejectedJobs[jobId] = true;
      return true;
    }
    case 'billing.credits-captured':
    case 'billing.credits-released': {
      const { jobId } = fact.payload;
      const held = ledger.reservations[jobId];
      if (held === undefined) return false;
      const captured = fact.type === 'billing.credits-captured';
      if (captured) ledger.used += held;
      ledger.reserved -= held;
      delete ledger.reservations[jobId];
      ledger.settled[jobId] = captured ? 'captured' : 'released';
      ledger.entries.push(entry(fact, captured ? 'captured' : 'released', jobId, held));
      return true;
    }
    default:
      return false;
  }
}

function copyLedger(ledger: AccountLedger): AccountLedger {
  return {
    ...ledger,
    reservations: { ...ledger.reservations },
    settled: { ...ledger.settled },
    rejectedJobs: { ...ledger.rejectedJobs },
    entries: [...ledger.entries],
  };
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
  if (fact.type === 'billing.account-opened') return state ?? openedLedger(fact);
  if (!state) return undefined;
  const next = copyLedger(state);
  return foldFact(next, fact) ? next : state;
}

/** The account a billing fact belongs to. */
export function billingAccountOf(event: EventEnvelope): string {
  return (event.payload as { accountId?: string }).accountId ?? event.aggregateId;
}

/**
 * Folds one billing fact into `ledgers` in place: what a replay of the whole log does, without the
 * copy per event that `applyBillingEvent` makes (which would cost each account's history per event).
 * The same ledgers result as from `applyBillingEvent` event by event.
 */
export function foldBillingEvent(ledgers: Map<string, AccountLedger>, event: EventEnvelope): void {
  if (!isBillingFact(event)) return;
  const fact = event as ThumbforgeEvent;
  const accountId = billingAccountOf(event);
  const ledger = ledgers.get(accountId);
  if (fact.type === 'billing.account-opened') {
    if (!ledger) ledgers.set(accountId, openedLedger(fact));
  } else if (ledger) {
    foldFact(ledger, fact);
  }
}

/** The ledgers of every account, folded from billing facts in log order. */
export function foldLedger(events: Iterable<EventEnvelope>): LedgerState {
  const ledgers = new Map<string, AccountLedger>();
  for (const event of events) foldBillingEvent(ledgers, event);
  return Object.fromEntries(ledgers);
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
