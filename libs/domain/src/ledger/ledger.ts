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
 * What billing has decided about one job: reserved, then captured or released; or rejected. Kept per
 * job, beside the ledger, so the facts stay idempotent without the ledger holding every job it saw.
 */
export type JobBilling = 'reserved' | 'captured' | 'released' | 'rejected';

/**
 * One account's credit ledger: the fold of its billing facts, holding only what a decision needs, so
 * applying a fact costs the same after a million jobs as after one. The jobs' billing and the history
 * entries are kept apart (`BillingChange`). Reservations still open when a new month starts stay held
 * in the new period and are captured or released there, so a job that straddles the month boundary is
 * charged exactly once.
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
  /** Id of the period-started fact the period came from; null for the period opened with the account. */
  periodEventId: string | null;
  /** How many history entries the account has: the next entry's number. */
  entryCount: number;
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

/** What one billing fact changed. Parts it left alone are absent; `ledger` is the input when unchanged. */
export interface BillingChange {
  ledger: AccountLedger;
  /** The job's billing after the fact. */
  job?: { jobId: string; billing: JobBilling };
  /** The history entry the fact adds, numbered `ledger.entryCount - 1`. */
  entry?: LedgerEntry;
}

/** The event types the ledger folds: a replay reads only these (`ReadOptions.types`). */
export const BILLING_FACT_TYPES: readonly string[] = [
  'billing.account-opened',
  'billing.account-changed',
  'billing.period-started',
  'billing.credits-reserved',
  'billing.credits-rejected',
  'billing.credits-captured',
  'billing.credits-released',
];

/**
 * Payload fields of billing facts the ledger's fold never reads, by type, for a replay to leave
 * undecoded (the event log's `unread`): a reservation carries the job it was made for, which rendering
 * and the job views need, and which is most of its bytes.
 */
export const LEDGER_UNREAD_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'billing.credits-reserved': ['job'],
};

/** Whether an envelope is a billing fact the ledger folds (commands and other types are not). */
export function isBillingFact(event: EventEnvelope): boolean {
  switch (event.type) {
    case 'billing.account-opened':
    case 'billing.account-changed':
    case 'billing.period-started':
    case 'billing.credits-reserved':
    case 'billing.credits-rejected':
    case 'billing.credits-captured':
    case 'billing.credits-released':
      return true;
    default:
      return false;
  }
}

/** The account a billing fact belongs to. */
export function billingAccountOf(event: EventEnvelope): string {
  return (event.payload as { accountId?: string }).accountId ?? event.aggregateId;
}

/** The job a billing fact is about, whose billing the fold needs; undefined for account facts. */
export function billingJobOf(event: EventEnvelope): string | undefined {
  return isBillingFact(event) ? jobOf(event) : undefined;
}

/** The job a billing fact names, if it names one. */
function jobOf(fact: EventEnvelope): string | undefined {
  return (fact.payload as { jobId?: string }).jobId;
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
    periodEventId: null,
    entryCount: 0,
  };
}

/** Counts the entry a fact adds to the ledger's history, and builds it only for a `history` kept. */
function record(
  ledger: AccountLedger,
  fact: ThumbforgeEvent,
  kind: LedgerEntryKind,
  jobId: string | null,
  amount: number,
  history: LedgerEntry[] | undefined,
): void {
  ledger.entryCount += 1;
  history?.push({ eventId: fact.id, kind, jobId, amount, at: fact.occurredAt });
}

/**
 * Folds one fact of an opened account into `ledger` in place, its open reservations being `held`,
 * given the billing of the fact's job so far. Answers false when it changed nothing (re-applied, or a
 * settlement of no open reservation), leaving the ledger untouched; else the job's billing after it,
 * or null for a fact about no job. The entry it adds to the history is pushed onto `history`. A replay folds a million
 * facts this way, so it allocates nothing the caller does not keep. `ledger.reservations` is neither
 * read nor written: `held` stands for it.
 */
function foldFact(
  ledger: AccountLedger,
  held: Map<string, number>,
  job: JobBilling | undefined,
  fact: ThumbforgeEvent,
  history: LedgerEntry[] | undefined,
): JobBilling | null | false {
  switch (fact.type) {
    case 'billing.account-changed': {
      const { plan, apiAccess } = fact.payload;
      // A plan change takes effect at once: the new plan's allowance applies to the current period.
      if (plan !== undefined) {
        ledger.plan = plan;
        ledger.allowance = PLAN_TERMS[plan].monthlyCredits;
      }
      if (apiAccess !== undefined) ledger.apiAccess = apiAccess;
      return null;
    }
    case 'billing.period-started': {
      const { periodStart, periodEnd, allowance } = fact.payload;
      // Applied again, or a month already left behind: either would wipe the usage of the current one.
      if (fact.id === ledger.periodEventId || periodStart < ledger.periodStart) return false;
      ledger.periodStart = periodStart;
      ledger.periodEnd = periodEnd;
      ledger.allowance = allowance;
      ledger.used = 0;
      ledger.periodEventId = fact.id;
      record(ledger, fact, 'period-started', null, allowance, history);
      return null;
    }
    case 'billing.credits-reserved': {
      const { jobId, amount } = fact.payload;
      if (job !== undefined || held.has(jobId)) return false;
      ledger.reserved += amount;
      held.set(jobId, amount);
      record(ledger, fact, 'reserved', jobId, amount, history);
      return 'reserved';
    }
    case 'billing.credits-rejected':
      return job === undefined ? 'rejected' : false;
    case 'billing.credits-captured':
    case 'billing.credits-released': {
      const { jobId } = fact.payload;
      const amount = held.get(jobId);
      if (amount === undefined) return false;
      const captured = fact.type === 'billing.credits-captured';
      if (captured) ledger.used += amount;
      ledger.reserved -= amount;
      held.delete(jobId);
      const billing = captured ? 'captured' : 'released';
      record(ledger, fact, billing, jobId, amount, history);
      return billing;
    }
    default:
      return false;
  }
}

/**
 * Applies one billing fact to an account's ledger, given the billing of the fact's job so far
 * (`billingJobOf`), and answers what changed; undefined when nothing did (commands, unknown types,
 * facts of an account never opened, re-applied facts). The ledger given is left as it is: a changed
 * one is a new object, whose only copied parts are its fields and its open reservations.
 */
export function applyBillingFact(
  state: AccountLedger | undefined,
  job: JobBilling | undefined,
  event: EventEnvelope,
): BillingChange | undefined {
  if (!isBillingFact(event)) return undefined;
  const fact = event as ThumbforgeEvent;
  if (fact.type === 'billing.account-opened') return state ? undefined : { ledger: openedLedger(fact) };
  if (!state) return undefined;
  const next = { ...state };
  const held = new Map(Object.entries(state.reservations));
  const added: LedgerEntry[] = [];
  const billing = foldFact(next, held, job, fact, added);
  if (billing === false) return undefined;
  const change: BillingChange = { ledger: next };
  if (billing) change.job = { jobId: jobOf(fact)!, billing };
  if (added.length > 0) change.entry = added[0];
  // A rejection changes only the job's billing.
  if (billing === 'rejected') change.ledger = state;
  // Only the facts about a job change its reservations; the others keep the object, never written to.
  else if (billing) next.reservations = Object.fromEntries(held);
  return change;
}

/** Every account's ledger, every job's billing and every account's history, from a replay. */
export interface BillingReplay {
  /**
   * Added to by the fold only, as its ledgers keep their reservations apart (`replayedLedger`); each
   * one's `reservations` is made afresh at every read: read it once per use.
   */
  readonly ledgers: ReadonlyMap<string, AccountLedger>;
  jobs: Map<string, JobBilling>;
  /** Oldest first; kept only when the replay is given the map. */
  histories?: Map<string, LedgerEntry[]>;
}

export function emptyBillingReplay(withHistories = false): BillingReplay {
  return { ledgers: new Map(), jobs: new Map(), ...(withHistories ? { histories: new Map() } : {}) };
}

const HELD = Symbol('open reservations');

/** The facts whose fold reads the billing of their job so far (`foldFact`'s `job`). */
const DECIDES_A_JOB: ReadonlySet<string> = new Set(['billing.credits-reserved', 'billing.credits-rejected']);

type ReplayedLedger = AccountLedger & { readonly [HELD]: Map<string, number> };

/**
 * A ledger as a replay holds it: its open reservations in a Map, which `reservations` reads as the
 * stored shape (an own, enumerable accessor, so copies, JSON and comparisons see a plain ledger). A
 * replay meets each of hundreds of thousands of job ids once, and an object interns every key it is
 * given: in an object, the reservations cost a quarter of the fold (docs/architecture.md, "A replay
 * holds open reservations in a Map").
 */
function replayedLedger(opened: AccountLedger): ReplayedLedger {
  // An account opens with no reservations.
  const held = new Map<string, number>();
  const { reservations: _none, ...fields } = opened;
  const ledger = {
    ...fields,
    get reservations() {
      return Object.fromEntries(held);
    },
  };
  // Not enumerable: a copy of the ledger must not share its reservations.
  return Object.defineProperty(ledger, HELD, { value: held }) as ReplayedLedger;
}

/**
 * Folds one billing fact into a replay in place: what a replay of the whole log does, without the
 * copy of the ledger that `applyBillingFact` makes. The same state results as from `applyBillingFact`.
 */
export function foldBillingEvent(replay: BillingReplay, event: EventEnvelope): void {
  if (!isBillingFact(event)) return;
  const fact = event as ThumbforgeEvent;
  const accountId = billingAccountOf(event);
  const ledger = replay.ledgers.get(accountId) as ReplayedLedger | undefined;
  if (fact.type === 'billing.account-opened') {
    if (!ledger)
      (replay.ledgers as Map<string, AccountLedger>).set(accountId, replayedLedger(openedLedger(fact)));
    return;
  }
  if (!ledger) return;
  const jobId = jobOf(fact);
  // A settlement finds its job among the ledger's open reservations: only a reservation or a
  // rejection needs the job's billing, from a map of every job the log ever billed.
  const job = jobId !== undefined && DECIDES_A_JOB.has(fact.type) ? replay.jobs.get(jobId) : undefined;
  const { histories } = replay;
  const kept = histories?.get(accountId);
  const history = kept ?? (histories ? [] : undefined);
  const billing = foldFact(ledger, ledger[HELD], job, fact, history);
  // An account's history starts with its first entry.
  if (!kept && history?.length) histories!.set(accountId, history);
  if (billing) replay.jobs.set(jobId!, billing);
}

/** Billing facts folded in log order, with the accounts' histories. */
export function replayBilling(events: Iterable<EventEnvelope>): Required<BillingReplay> {
  const replay = emptyBillingReplay(true) as Required<BillingReplay>;
  for (const event of events) foldBillingEvent(replay, event);
  return replay;
}

/** The ledgers of every account, folded from billing facts in log order. */
export function foldLedger(events: Iterable<EventEnvelope>): LedgerState {
  return Object.fromEntries(replayBilling(events).ledgers);
}

/**
 * History entries are stored in pages of this many. Few, because the document store rewrites the
 * whole page to add an entry (docs/architecture.md, "History pages are small").
 */
export const LEDGER_PAGE_SIZE = 10;

/** One page of an account's history: entries `first` onwards, oldest first. */
export interface LedgerPage {
  id: string;
  accountId: string;
  page: number;
  /**
   * Number of the page's first entry in the history: where the page begins, or later when the entries
   * before were written in pages of another size (`addToLedgerPage`).
   */
  first: number;
  entries: LedgerEntry[];
}

/** The page size is part of the id: pages of another size, from an earlier release, keep their own ids. */
export function ledgerPageId(accountId: string, page: number): string {
  return `${accountId}:${LEDGER_PAGE_SIZE}:${page}`;
}

/** The page that entry number `seq` of an account's history belongs to. */
export function ledgerPageOf(seq: number): number {
  return Math.floor(seq / LEDGER_PAGE_SIZE);
}

/**
 * The page after adding entry number `seq` to it (undefined: the page does not exist yet). An entry
 * the page holds already, as when a fact is applied again, leaves it as it is. A page starts at the
 * first entry added to it.
 */
export function addToLedgerPage(
  page: LedgerPage | undefined,
  accountId: string,
  seq: number,
  entry: LedgerEntry,
): LedgerPage {
  if (!page) {
    const number = ledgerPageOf(seq);
    return { id: ledgerPageId(accountId, number), accountId, page: number, first: seq, entries: [entry] };
  }
  if (seq < page.first + page.entries.length) return page;
  return { ...page, entries: [...page.entries, entry] };
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
