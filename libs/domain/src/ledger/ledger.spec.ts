import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@thumbforge/contracts';
import { ACCOUNT, ev, jobSpec } from '../../test/fixtures.js';
import {
  addToLedgerPage,
  applyBillingFact,
  billingJobOf,
  creditsAt,
  emptyBillingReplay,
  foldBillingEvent,
  foldLedger,
  isBillingFact,
  BILLING_FACT_TYPES,
  LEDGER_PAGE_SIZE,
  remaining,
  replayBilling,
  type AccountLedger,
  type BillingChange,
  type JobBilling,
  type LedgerEntry,
} from './ledger.js';
import { calendarPeriod, periodHasEnded } from './period.js';

/** Frozen all the way down: a fold that writes into it throws. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function ledger(overrides: Partial<AccountLedger> = {}): AccountLedger {
  return {
    accountId: ACCOUNT,
    plan: 'free',
    apiAccess: true,
    periodStart: '2026-04-01T00:00:00Z',
    periodEnd: '2026-05-01T00:00:00Z',
    allowance: 50,
    used: 0,
    reserved: 0,
    reservations: {},
    periodEventId: null,
    entryCount: 0,
    ...overrides,
  };
}

const APRIL = { periodStart: '2026-04-01T00:00:00Z', periodEnd: '2026-05-01T00:00:00Z' };

describe('calendarPeriod', () => {
  it.each([
    ['mid-month', '2026-04-27T14:30:00.123Z', '2026-04-01T00:00:00Z', '2026-05-01T00:00:00Z'],
    ['first instant', '2026-04-01T00:00:00.000Z', '2026-04-01T00:00:00Z', '2026-05-01T00:00:00Z'],
    ['last instant', '2026-04-30T23:59:59.999Z', '2026-04-01T00:00:00Z', '2026-05-01T00:00:00Z'],
    ['December rolls the year', '2026-12-31T23:00:00.000Z', '2026-12-01T00:00:00Z', '2027-01-01T00:00:00Z'],
    ['leap February', '2028-02-29T10:00:00.000Z', '2028-02-01T00:00:00Z', '2028-03-01T00:00:00Z'],
  ])('%s', (_name, at, periodStart, periodEnd) => {
    expect(calendarPeriod(new Date(at))).toEqual({ periodStart, periodEnd });
  });
});

describe('periodHasEnded', () => {
  it.each([
    ['2026-04-30T23:59:59.999Z', false],
    ['2026-05-01T00:00:00.000Z', true],
    ['2026-07-03T00:00:00.000Z', true],
    ['2026-03-31T00:00:00.000Z', false],
  ])('at %s → %s', (now, ended) => {
    expect(periodHasEnded(APRIL, new Date(now))).toBe(ended);
  });
});

describe('remaining', () => {
  it.each([
    [{ allowance: 50, used: 0, reserved: 0 }, 50],
    [{ allowance: 50, used: 20, reserved: 10 }, 20],
    [{ allowance: 50, used: 40, reserved: 10 }, 0],
    // after a downgrade usage can exceed the allowance: never shown as negative
    [{ allowance: 50, used: 700, reserved: 0 }, 0],
  ])('%o → %i', (fields, expected) => {
    expect(remaining(ledger(fields))).toBe(expected);
  });
});

describe('creditsAt', () => {
  it.each([
    [
      'inside the period',
      ledger({ used: 20, reserved: 10 }),
      '2026-04-15T00:00:00Z',
      { allowance: 50, used: 20, reserved: 10, remaining: 20, ...APRIL },
    ],
    [
      'at the period end: a fresh month',
      ledger({ used: 40 }),
      '2026-05-01T00:00:00Z',
      {
        allowance: 50,
        used: 0,
        reserved: 0,
        remaining: 50,
        periodStart: '2026-05-01T00:00:00Z',
        periodEnd: '2026-06-01T00:00:00Z',
      },
    ],
    [
      'months later, with a reservation still held',
      ledger({ used: 40, reserved: 10, reservations: { job_a: 10 } }),
      '2026-08-20T00:00:00Z',
      {
        allowance: 50,
        used: 0,
        reserved: 10,
        remaining: 40,
        periodStart: '2026-08-01T00:00:00Z',
        periodEnd: '2026-09-01T00:00:00Z',
      },
    ],
    [
      'the fresh month uses the current plan allowance',
      ledger({ plan: 'pro', allowance: 2500, used: 2500 }),
      '2026-05-02T00:00:00Z',
      {
        allowance: 2500,
        used: 0,
        reserved: 0,
        remaining: 2500,
        periodStart: '2026-05-01T00:00:00Z',
        periodEnd: '2026-06-01T00:00:00Z',
      },
    ],
  ])('%s', (_name, state, now, expected) => {
    expect(creditsAt(state, new Date(now))).toEqual(expected);
  });
});

describe('isBillingFact', () => {
  it.each([
    [ev('billing.account-opened', { accountId: ACCOUNT, plan: 'free', apiAccess: true }), true],
    [ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }), true],
    [ev('billing.reservation-requested', { job: jobSpec('job_a') }), false],
    [ev('billing.account-open-requested', { accountId: ACCOUNT, plan: 'free', apiAccess: true }), false],
    [ev('render.failed', { jobId: 'job_a', accountId: ACCOUNT, error: 'x', webhookUrl: null }), false],
  ])('%#: %s', (event, expected) => {
    expect(isBillingFact(event)).toBe(expected);
  });

  it.each(BILLING_FACT_TYPES)('folds every type a replay reads: %s', (type) => {
    expect(isBillingFact(ev(type as never, {} as never))).toBe(true);
  });
});

describe('applyBillingFact', () => {
  const opened = ev(
    'billing.account-opened',
    { accountId: ACCOUNT, plan: 'creator', apiAccess: false },
    '2026-04-10T12:00:00.000Z',
    'evt_open',
  );
  const held = ledger({ reserved: 10, reservations: { job_a: 10 }, entryCount: 1 });
  const entry = (
    kind: LedgerEntry['kind'],
    jobId: string | null,
    amount: number,
    eventId: string,
  ): LedgerEntry => ({
    eventId,
    kind,
    jobId,
    amount,
    at: '2026-04-10T12:00:00.000Z',
  });
  const reservedA = ev(
    'billing.credits-reserved',
    { accountId: ACCOUNT, jobId: 'job_a', amount: 12, job: jobSpec('job_a', { cost: 12 }) },
    undefined,
    'evt_r',
  );
  const rejectedB = ev('billing.credits-rejected', {
    accountId: ACCOUNT,
    jobId: 'job_b',
    amount: 60,
    remaining: 50,
    reason: { status: 429, code: 'GENERATION_LIMIT_EXCEEDED', error: 'Generation limit exceeded' },
  });

  it.each<
    [string, AccountLedger | undefined, JobBilling | undefined, EventEnvelope, BillingChange | undefined]
  >([
    [
      'account-opened creates the ledger in the month it happened',
      undefined,
      undefined,
      opened,
      { ledger: ledger({ plan: 'creator', apiAccess: false, allowance: 750 }) },
    ],
    ['account-opened for an existing account changes nothing', held, undefined, opened, undefined],
    [
      'period-started restores the allowance and clears usage, keeps open reservations',
      ledger({ used: 30, reserved: 10, reservations: { job_a: 10 }, entryCount: 3 }),
      undefined,
      ev(
        'billing.period-started',
        {
          accountId: ACCOUNT,
          periodStart: '2026-05-01T00:00:00Z',
          periodEnd: '2026-06-01T00:00:00Z',
          allowance: 50,
        },
        '2026-04-10T12:00:00.000Z',
        'evt_p',
      ),
      {
        ledger: ledger({
          periodStart: '2026-05-01T00:00:00Z',
          periodEnd: '2026-06-01T00:00:00Z',
          used: 0,
          reserved: 10,
          reservations: { job_a: 10 },
          periodEventId: 'evt_p',
          entryCount: 4,
        }),
        entry: entry('period-started', null, 50, 'evt_p'),
      },
    ],
    [
      'period-started of a month already left behind changes nothing',
      ledger({ used: 30, periodStart: '2026-05-01T00:00:00Z', periodEnd: '2026-06-01T00:00:00Z' }),
      undefined,
      ev('billing.period-started', { accountId: ACCOUNT, ...APRIL, allowance: 50 }),
      undefined,
    ],
    [
      'credits-reserved holds the amount',
      ledger(),
      undefined,
      reservedA,
      {
        ledger: ledger({ reserved: 12, reservations: { job_a: 12 }, entryCount: 1 }),
        job: { jobId: 'job_a', billing: 'reserved' },
        entry: entry('reserved', 'job_a', 12, 'evt_r'),
      },
    ],
    ['credits-reserved for a job already held changes nothing', held, 'reserved', reservedA, undefined],
    // The ledger's own open reservations guard it even when the job's billing is not known (yet).
    [
      'credits-reserved for a job held, its billing unknown, changes nothing',
      held,
      undefined,
      reservedA,
      undefined,
    ],
    ['credits-reserved for a settled job changes nothing', ledger(), 'released', reservedA, undefined],
    ['credits-reserved for a rejected job changes nothing', ledger(), 'rejected', reservedA, undefined],
    [
      'credits-rejected records the job only',
      ledger(),
      undefined,
      rejectedB,
      { ledger: ledger(), job: { jobId: 'job_b', billing: 'rejected' } },
    ],
    ['credits-rejected of a job rejected before changes nothing', ledger(), 'rejected', rejectedB, undefined],
    [
      'credits-captured moves the held amount to used',
      held,
      'reserved',
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }, undefined, 'evt_c'),
      {
        ledger: ledger({ used: 10, entryCount: 2 }),
        job: { jobId: 'job_a', billing: 'captured' },
        entry: entry('captured', 'job_a', 10, 'evt_c'),
      },
    ],
    [
      'credits-released gives the held amount back',
      held,
      'reserved',
      ev(
        'billing.credits-released',
        { accountId: ACCOUNT, jobId: 'job_a', amount: 10, reason: 'render failed' },
        undefined,
        'evt_x',
      ),
      {
        ledger: ledger({ entryCount: 2 }),
        job: { jobId: 'job_a', billing: 'released' },
        entry: entry('released', 'job_a', 10, 'evt_x'),
      },
    ],
    [
      'a capture without an open reservation changes nothing',
      ledger({ used: 10 }),
      'captured',
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }),
      undefined,
    ],
    [
      'a plan change applies the new allowance at once and keeps usage',
      ledger({ used: 30 }),
      undefined,
      ev('billing.account-changed', { accountId: ACCOUNT, plan: 'pro' }),
      { ledger: ledger({ plan: 'pro', allowance: 2500, used: 30 }) },
    ],
    [
      'an apiAccess change leaves the plan alone',
      ledger(),
      undefined,
      ev('billing.account-changed', { accountId: ACCOUNT, apiAccess: false }),
      { ledger: ledger({ apiAccess: false }) },
    ],
    [
      'a fact for an account never opened is dropped',
      undefined,
      undefined,
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }),
      undefined,
    ],
    [
      'a command is ignored',
      held,
      undefined,
      ev('billing.reservation-requested', { job: jobSpec('job_z') }),
      undefined,
    ],
    [
      'another topic’s event is ignored',
      held,
      'reserved',
      ev('render.failed', { jobId: 'job_a', accountId: ACCOUNT, error: 'x', webhookUrl: null }),
      undefined,
    ],
  ])('%s', (_name, state, job, event, expected) => {
    expect(applyBillingFact(state === undefined ? undefined : deepFreeze(state), job, event)).toEqual(
      expected,
    );
  });

  it('answers the job a fact needs the billing of', () => {
    expect(billingJobOf(reservedA)).toBe('job_a');
    expect(billingJobOf(rejectedB)).toBe('job_b');
    expect(billingJobOf(opened)).toBeUndefined();
    expect(billingJobOf(ev('billing.reservation-requested', { job: jobSpec('job_z') }))).toBeUndefined();
  });

  it('applies a period start only once per event id', () => {
    const started = ev('billing.period-started', { accountId: ACCOUNT, ...APRIL, allowance: 50 });
    const once = applyBillingFact(ledger({ used: 20 }), undefined, started)!.ledger;
    const consumed = applyBillingFact(once, undefined, reservedA)!.ledger;
    const captured = applyBillingFact(
      consumed,
      'reserved',
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 12 }),
    )!.ledger;
    expect(applyBillingFact(captured, undefined, started)).toBeUndefined();
    expect(captured.used).toBe(12);
  });

  /**
   * The work a fact costs is what `applyBillingFact` builds anew: the keys of every object in its
   * answer that is not shared with the ledger it was given. That must not grow with the account's
   * history, however many jobs it has had.
   */
  it('copies as many keys after thousands of jobs as after a few', () => {
    const newKeys = (value: unknown, before: unknown): number => {
      if (typeof value !== 'object' || value === null || value === before) return 0;
      return Object.entries(value).reduce(
        (n, [key, inner]) => n + 1 + newKeys(inner, (before as Record<string, unknown> | undefined)?.[key]),
        0,
      );
    };
    let state = applyBillingFact(undefined, undefined, opened)!.ledger;
    const jobs = new Map<string, JobBilling>();
    const costs: number[] = [];
    for (let i = 0; i < 5000; i += 1) {
      const jobId = `job_${i}`;
      const facts = [
        ev('billing.credits-reserved', {
          accountId: ACCOUNT,
          jobId,
          amount: 1,
          job: jobSpec(jobId, { cost: 1 }),
        }),
        ev(i % 3 ? 'billing.credits-captured' : 'billing.credits-released', {
          accountId: ACCOUNT,
          jobId,
          amount: 1,
          reason: 'x',
        }),
      ];
      for (const fact of facts) {
        const change = applyBillingFact(state, jobs.get(jobId), fact)!;
        costs.push(newKeys(change, state));
        if (change.job) jobs.set(jobId, change.job.billing);
        state = deepFreeze(change.ledger);
      }
    }
    expect(state.entryCount).toBe(10_000);
    expect(state.used).toBe(3333);
    expect(Math.max(...costs.slice(-1000))).toBe(Math.max(...costs.slice(0, 1000)));
  });
});

describe('addToLedgerPage', () => {
  const at = '2026-04-10T12:00:00.000Z';
  const entry = (n: number): LedgerEntry => ({
    eventId: `evt_${n}`,
    kind: 'reserved',
    jobId: `job_${n}`,
    amount: 1,
    at,
  });
  const pageId = (n: number) => `${ACCOUNT}:${LEDGER_PAGE_SIZE}:${n}`;
  const full = {
    id: pageId(0),
    accountId: ACCOUNT,
    page: 0,
    first: 0,
    entries: Array.from({ length: LEDGER_PAGE_SIZE }, (_, n) => entry(n)),
  };
  const second = LEDGER_PAGE_SIZE;
  // Entries 0 to second + 2 were written in pages of another size: this page opened at second + 3.
  const opened = {
    id: pageId(1),
    accountId: ACCOUNT,
    page: 1,
    first: second + 3,
    entries: [entry(second + 3)],
  };

  it.each([
    [
      'the first entry opens page 0',
      undefined,
      0,
      { id: pageId(0), accountId: ACCOUNT, page: 0, first: 0, entries: [entry(0)] },
    ],
    [
      'the next entry joins its page',
      { ...full, entries: [entry(0)] },
      1,
      { ...full, entries: [entry(0), entry(1)] },
    ],
    [
      'the entry after a full page opens the next',
      undefined,
      second,
      { id: pageId(1), accountId: ACCOUNT, page: 1, first: second, entries: [entry(second)] },
    ],
    ['an entry the page holds already leaves it', full, 5, full],
    ['a page opened past its start opens at that entry', undefined, second + 3, opened],
    [
      'a page opened past its start takes the entries after it',
      opened,
      second + 4,
      { ...opened, entries: [entry(second + 3), entry(second + 4)] },
    ],
    ['a page opened past its start leaves the entries before it', opened, second + 2, opened],
  ])('%s', (_name, page, seq, expected) => {
    expect(addToLedgerPage(page, ACCOUNT, seq, entry(seq))).toEqual(expected);
  });
});

describe('foldLedger', () => {
  const B = 'acc_2';
  it.each<[string, EventEnvelope[], Record<string, Partial<AccountLedger>>]>([
    ['no events', [], {}],
    [
      'two accounts are kept apart',
      [
        ev('billing.account-opened', { accountId: ACCOUNT, plan: 'free', apiAccess: true }),
        ev('billing.account-opened', { accountId: B, plan: 'pro', apiAccess: true }),
        ev('billing.credits-reserved', {
          accountId: B,
          jobId: 'job_b',
          amount: 20,
          job: jobSpec('job_b', { accountId: B, cost: 20 }),
        }),
        ev('billing.credits-captured', { accountId: B, jobId: 'job_b', amount: 20 }),
      ],
      {
        [ACCOUNT]: { used: 0, allowance: 50, entryCount: 0 },
        [B]: { used: 20, allowance: 2500, entryCount: 2 },
      },
    ],
    [
      'commands and facts of unopened accounts leave no trace',
      [
        ev('billing.account-open-requested', { accountId: ACCOUNT, plan: 'free', apiAccess: true }),
        ev('billing.credits-captured', { accountId: B, jobId: 'job_b', amount: 20 }),
      ],
      {},
    ],
    [
      'a duplicate capture is counted once',
      [
        ev('billing.account-opened', { accountId: ACCOUNT, plan: 'free', apiAccess: true }),
        ev('billing.credits-reserved', {
          accountId: ACCOUNT,
          jobId: 'job_a',
          amount: 12,
          job: jobSpec('job_a', { cost: 12 }),
        }),
        ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 12 }),
        ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 12 }),
      ],
      { [ACCOUNT]: { used: 12, reserved: 0, reservations: {} } },
    ],
  ])('%s', (_name, events, expected) => {
    const state = foldLedger(events);
    expect(Object.keys(state).sort()).toEqual(Object.keys(expected).sort());
    for (const [accountId, fields] of Object.entries(expected))
      expect(state[accountId]).toMatchObject(fields);
  });

  it('equals applying the facts one by one, which leaves every ledger it was given as it was', () => {
    const events = [
      ev('billing.account-opened', { accountId: ACCOUNT, plan: 'free', apiAccess: true }),
      ev('billing.credits-reserved', {
        accountId: ACCOUNT,
        jobId: 'job_a',
        amount: 10,
        job: jobSpec('job_a'),
      }),
      ev('billing.credits-rejected', {
        accountId: ACCOUNT,
        jobId: 'job_b',
        amount: 10,
        remaining: 0,
        reason: { status: 429, code: 'GENERATION_LIMIT_EXCEEDED', error: 'Generation limit exceeded' },
      }),
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }),
      ev('billing.account-changed', { accountId: ACCOUNT, plan: 'pro' }),
      ev('billing.credits-reserved', {
        accountId: ACCOUNT,
        jobId: 'job_c',
        amount: 20,
        job: jobSpec('job_c'),
      }),
      ev('billing.credits-released', {
        accountId: ACCOUNT,
        jobId: 'job_c',
        amount: 20,
        reason: 'render failed',
      }),
    ];
    let state: AccountLedger | undefined;
    const jobs = new Map<string, JobBilling>();
    const history: LedgerEntry[] = [];
    const counts: number[] = [];
    for (const event of events) {
      const jobId = billingJobOf(event);
      const change = applyBillingFact(state, jobId === undefined ? undefined : jobs.get(jobId), event)!;
      if (change.job) jobs.set(change.job.jobId, change.job.billing);
      if (change.entry) history.push(change.entry);
      state = deepFreeze(change.ledger);
      counts.push(state.entryCount);
    }
    const replay = replayBilling(events);
    expect(replay.ledgers.get(ACCOUNT)).toEqual(state);
    expect(replay.jobs).toEqual(jobs);
    expect(replay.histories.get(ACCOUNT)).toEqual(history);
    expect(Object.fromEntries(jobs)).toEqual({ job_a: 'captured', job_b: 'rejected', job_c: 'released' });
    expect(counts).toEqual([0, 1, 1, 2, 2, 3, 4]);
  });

  it('hands out ledgers that read, copy and serialise as stored ones, each copy keeping its reservations', () => {
    const reserve = (jobId: string, amount: number) =>
      ev('billing.credits-reserved', {
        accountId: ACCOUNT,
        jobId,
        amount,
        job: jobSpec(jobId, { cost: amount }),
      });
    const replay = emptyBillingReplay();
    for (const event of [
      ev('billing.account-opened', { accountId: ACCOUNT, plan: 'free', apiAccess: true }),
      reserve('job_a', 5),
      reserve('job_b', 3),
    ])
      foldBillingEvent(replay, event);
    const replayed = replay.ledgers.get(ACCOUNT)!;
    const copy = { ...replayed };
    const stored: AccountLedger = JSON.parse(JSON.stringify(replayed));

    foldBillingEvent(
      replay,
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 5 }),
    );
    expect(replayed.reservations).toEqual({ job_b: 3 });
    expect(replayed).toMatchObject({ used: 5, reserved: 3 });
    // Taken before the capture, the copy and the serialised ledger still hold both.
    expect(copy.reservations).toEqual({ job_a: 5, job_b: 3 });
    expect(stored).toEqual({ ...copy });
    expect(Object.keys(stored).sort()).toEqual(Object.keys(ledger()).sort());
    expect(Object.getOwnPropertySymbols(copy)).toEqual([]);
    // A copy folds like any stored ledger, and the replay's ledger does not see it.
    const released = applyBillingFact(
      copy,
      'reserved',
      ev('billing.credits-released', {
        accountId: ACCOUNT,
        jobId: 'job_b',
        amount: 3,
        reason: 'render failed',
      }),
    )!;
    expect(released.ledger.reservations).toEqual({ job_a: 5 });
    expect(replayed.reservations).toEqual({ job_b: 3 });
  });
});
