import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@thumbforge/contracts';
import { ACCOUNT, ev, jobSpec } from '../../test/fixtures.js';
import {
  applyBillingEvent,
  creditsAt,
  foldLedger,
  isBillingFact,
  remaining,
  type AccountLedger,
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
    settled: {},
    rejectedJobs: {},
    entries: [],
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
});

describe('applyBillingEvent', () => {
  const opened = ev(
    'billing.account-opened',
    { accountId: ACCOUNT, plan: 'creator', apiAccess: false },
    '2026-04-10T12:00:00.000Z',
    'evt_open',
  );
  const held = ledger({ reserved: 10, reservations: { job_a: 10 }, entries: [] });
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

  it.each<[string, AccountLedger | undefined, EventEnvelope, AccountLedger | undefined]>([
    [
      'account-opened creates the ledger in the month it happened',
      undefined,
      opened,
      ledger({ plan: 'creator', apiAccess: false, allowance: 750 }),
    ],
    ['account-opened for an existing account changes nothing', held, opened, held],
    [
      'period-started restores the allowance and clears usage, keeps open reservations',
      ledger({ used: 30, reserved: 10, reservations: { job_a: 10 } }),
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
      ledger({
        periodStart: '2026-05-01T00:00:00Z',
        periodEnd: '2026-06-01T00:00:00Z',
        used: 0,
        reserved: 10,
        reservations: { job_a: 10 },
        entries: [entry('period-started', null, 50, 'evt_p')],
      }),
    ],
    [
      'credits-reserved holds the amount',
      ledger(),
      ev(
        'billing.credits-reserved',
        { accountId: ACCOUNT, jobId: 'job_a', amount: 12, job: jobSpec('job_a', { cost: 12 }) },
        undefined,
        'evt_r',
      ),
      ledger({
        reserved: 12,
        reservations: { job_a: 12 },
        entries: [entry('reserved', 'job_a', 12, 'evt_r')],
      }),
    ],
    [
      'credits-reserved for a job already held changes nothing',
      held,
      ev('billing.credits-reserved', {
        accountId: ACCOUNT,
        jobId: 'job_a',
        amount: 10,
        job: jobSpec('job_a'),
      }),
      held,
    ],
    [
      'credits-reserved for a settled job changes nothing',
      ledger({ settled: { job_a: 'released' } }),
      ev('billing.credits-reserved', {
        accountId: ACCOUNT,
        jobId: 'job_a',
        amount: 10,
        job: jobSpec('job_a'),
      }),
      ledger({ settled: { job_a: 'released' } }),
    ],
    [
      'credits-rejected remembers the job',
      ledger(),
      ev('billing.credits-rejected', {
        accountId: ACCOUNT,
        jobId: 'job_b',
        amount: 60,
        remaining: 50,
        reason: { status: 429, code: 'GENERATION_LIMIT_EXCEEDED', error: 'Generation limit exceeded' },
      }),
      ledger({ rejectedJobs: { job_b: true } }),
    ],
    [
      'credits-captured moves the held amount to used',
      held,
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }, undefined, 'evt_c'),
      ledger({
        used: 10,
        settled: { job_a: 'captured' },
        entries: [entry('captured', 'job_a', 10, 'evt_c')],
      }),
    ],
    [
      'credits-released gives the held amount back',
      held,
      ev(
        'billing.credits-released',
        { accountId: ACCOUNT, jobId: 'job_a', amount: 10, reason: 'render failed' },
        undefined,
        'evt_x',
      ),
      ledger({ settled: { job_a: 'released' }, entries: [entry('released', 'job_a', 10, 'evt_x')] }),
    ],
    [
      'a capture without an open reservation changes nothing',
      ledger({ used: 10, settled: { job_a: 'captured' } }),
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }),
      ledger({ used: 10, settled: { job_a: 'captured' } }),
    ],
    [
      'a plan change applies the new allowance at once and keeps usage',
      ledger({ used: 30 }),
      ev('billing.account-changed', { accountId: ACCOUNT, plan: 'pro' }),
      ledger({ plan: 'pro', allowance: 2500, used: 30 }),
    ],
    [
      'an apiAccess change leaves the plan alone',
      ledger(),
      ev('billing.account-changed', { accountId: ACCOUNT, apiAccess: false }),
      ledger({ apiAccess: false }),
    ],
    [
      'a fact for an account never opened is dropped',
      undefined,
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }),
      undefined,
    ],
    ['a command is ignored', held, ev('billing.reservation-requested', { job: jobSpec('job_z') }), held],
    [
      'another topic’s event is ignored',
      held,
      ev('render.failed', { jobId: 'job_a', accountId: ACCOUNT, error: 'x', webhookUrl: null }),
      held,
    ],
  ])('%s', (_name, state, event, expected) => {
    expect(applyBillingEvent(state, event)).toEqual(expected);
  });

  it.each([
    ['a command', ev('billing.reservation-requested', { job: jobSpec('job_z') })],
    [
      'a duplicate reservation',
      ev('billing.credits-reserved', {
        accountId: ACCOUNT,
        jobId: 'job_a',
        amount: 10,
        job: jobSpec('job_a'),
      }),
    ],
  ])('returns the same object when %s changes nothing', (_name, event) => {
    expect(applyBillingEvent(held, event)).toBe(held);
  });

  it('returns a new object and leaves its input untouched', () => {
    const before = structuredClone(held);
    const after = applyBillingEvent(
      held,
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }),
    );
    expect(after).not.toBe(held);
    expect(held).toEqual(before);
  });

  it('applies a period start only once per event id', () => {
    const started = ev('billing.period-started', { accountId: ACCOUNT, ...APRIL, allowance: 50 });
    const once = applyBillingEvent(ledger({ used: 20 }), started)!;
    const consumed = applyBillingEvent(
      once,
      ev('billing.credits-reserved', {
        accountId: ACCOUNT,
        jobId: 'job_a',
        amount: 10,
        job: jobSpec('job_a'),
      }),
    )!;
    const captured = applyBillingEvent(
      consumed,
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }),
    )!;
    expect(applyBillingEvent(captured, started)).toBe(captured);
    expect(captured.used).toBe(10);
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
        [ACCOUNT]: { used: 0, allowance: 50 },
        [B]: { used: 20, allowance: 2500, settled: { job_b: 'captured' } },
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

  it('equals applying the events one by one, which leaves every ledger it was given as it was', () => {
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
    const seen: AccountLedger[] = [];
    events.reduce<AccountLedger | undefined>((state, event) => {
      const next = applyBillingEvent(state, event)!;
      seen.push(structuredClone(next));
      return deepFreeze(next);
    }, undefined);
    expect(seen.at(-1)).toEqual(foldLedger(events)[ACCOUNT]);
    expect(seen.map((l) => l.entries.length)).toEqual([0, 1, 1, 2, 2, 3, 4]);
  });
});
