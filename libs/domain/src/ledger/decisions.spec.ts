import { describe, expect, it } from 'vitest';
import type { AccountChangeRequestedV1, ThumbforgeEvent } from '@thumbforge/contracts';
import { ACCOUNT, jobSpec } from '../../test/fixtures.js';
import {
  decideChangeAccount,
  decideOpenAccount,
  decideReservation,
  decideSettlement,
  GENERATION_LIMIT_EXCEEDED,
} from './decisions.js';
import { applyBillingFact, type AccountLedger } from './ledger.js';

const NOW = new Date('2026-04-10T12:00:00.000Z');

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

const shape = (events: ThumbforgeEvent[]) => events.map((e) => ({ type: e.type, payload: e.payload }));

describe('decideOpenAccount', () => {
  it.each([
    ['free', 50],
    ['creator', 750],
    ['pro', 2500],
    ['business', 10000],
  ] as const)('a new %s account opens with its first period of %i credits', (plan, allowance) => {
    const events = decideOpenAccount(undefined, { accountId: ACCOUNT, plan, apiAccess: true }, NOW);
    expect(shape(events)).toEqual([
      { type: 'billing.account-opened', payload: { accountId: ACCOUNT, plan, apiAccess: true } },
      {
        type: 'billing.period-started',
        payload: {
          accountId: ACCOUNT,
          periodStart: '2026-04-01T00:00:00Z',
          periodEnd: '2026-05-01T00:00:00Z',
          allowance,
        },
      },
    ]);
  });

  it.each([
    ['the same plan', 'free'],
    ['another plan', 'pro'],
  ] as const)('an existing account yields nothing (%s)', (_name, plan) => {
    expect(decideOpenAccount(ledger(), { accountId: ACCOUNT, plan, apiAccess: true }, NOW)).toEqual([]);
  });
});

describe('decideChangeAccount', () => {
  it.each<[string, AccountChangeRequestedV1, object]>([
    ['plan only', { accountId: ACCOUNT, plan: 'pro' }, { accountId: ACCOUNT, plan: 'pro' }],
    ['apiAccess only', { accountId: ACCOUNT, apiAccess: false }, { accountId: ACCOUNT, apiAccess: false }],
    [
      'both',
      { accountId: ACCOUNT, plan: 'creator', apiAccess: true },
      { accountId: ACCOUNT, plan: 'creator', apiAccess: true },
    ],
  ])('%s', (_name, cmd, payload) => {
    expect(shape(decideChangeAccount(ledger(), cmd, NOW))).toEqual([
      { type: 'billing.account-changed', payload },
    ]);
  });

  it.each([
    ['upgrade frees credits at once', 'free', 40, 'pro', 2460],
    ['downgrade keeps usage and can leave nothing', 'pro', 700, 'free', 0],
  ] as const)('%s', (_name, from, used, to, left) => {
    const state = ledger({ plan: from, allowance: from === 'pro' ? 2500 : 50, used });
    const [changed] = decideChangeAccount(state, { accountId: ACCOUNT, plan: to }, NOW);
    const next = applyBillingFact(state, undefined, changed!)!.ledger;
    expect(next.plan).toBe(to);
    expect(Math.max(0, next.allowance - next.used - next.reserved)).toBe(left);
  });

  it('an unknown account yields nothing', () => {
    expect(decideChangeAccount(undefined, { accountId: ACCOUNT, plan: 'pro' }, NOW)).toEqual([]);
  });
});

describe('decideReservation', () => {
  it.each([
    ['covers the cost exactly', ledger({ used: 40 }), 10, ['billing.credits-reserved']],
    ['plenty left', ledger(), 26, ['billing.credits-reserved']],
    ['one credit short', ledger({ used: 30, reserved: 11 }), 10, ['billing.credits-rejected']],
    ['cost above the whole allowance', ledger(), 60, ['billing.credits-rejected']],
    ['usage beyond a downgraded allowance', ledger({ used: 700 }), 10, ['billing.credits-rejected']],
    [
      'new month: the period starts first, then the reservation',
      ledger({ periodStart: '2026-03-01T00:00:00Z', periodEnd: '2026-04-01T00:00:00Z', used: 50 }),
      10,
      ['billing.period-started', 'billing.credits-reserved'],
    ],
    [
      'new month still rejects what the fresh allowance cannot cover',
      ledger({ periodStart: '2026-03-01T00:00:00Z', periodEnd: '2026-04-01T00:00:00Z', used: 50 }),
      60,
      ['billing.period-started', 'billing.credits-rejected'],
    ],
  ])('%s', (_name, state, cost, types) => {
    const events = decideReservation(state, undefined, { job: jobSpec('job_new', { cost }) }, NOW);
    expect(events.map((e) => e.type)).toEqual(types);
  });

  it.each([
    ['held', ledger({ reserved: 10, reservations: { job_a: 10 } }), 'reserved'],
    ['captured', ledger({ used: 10 }), 'captured'],
    ['released', ledger(), 'released'],
    ['rejected', ledger(), 'rejected'],
    [
      'held across a month boundary',
      ledger({ periodEnd: '2026-04-01T00:00:00Z', reservations: { job_a: 10 } }),
      'reserved',
    ],
  ] as const)('a job already %s yields nothing', (_name, state, decided) => {
    expect(decideReservation(state, decided, { job: jobSpec('job_a') }, NOW)).toEqual([]);
  });

  it('a reservation carries the job, the amount and the account', () => {
    const job = jobSpec('job_a', { cost: 14, usePhoto: true, useLogo: true });
    expect(shape(decideReservation(ledger(), undefined, { job }, NOW))).toEqual([
      { type: 'billing.credits-reserved', payload: { accountId: ACCOUNT, jobId: 'job_a', amount: 14, job } },
    ]);
  });

  it('a rejection carries the 429 reason and what was left', () => {
    expect(shape(decideReservation(ledger({ used: 45 }), undefined, { job: jobSpec('job_a') }, NOW))).toEqual(
      [
        {
          type: 'billing.credits-rejected',
          payload: {
            accountId: ACCOUNT,
            jobId: 'job_a',
            amount: 10,
            remaining: 5,
            reason: GENERATION_LIMIT_EXCEEDED,
          },
        },
      ],
    );
    expect(GENERATION_LIMIT_EXCEEDED).toEqual({
      status: 429,
      code: 'GENERATION_LIMIT_EXCEEDED',
      error: 'Generation limit exceeded',
    });
  });

  it('the new period is the calendar month of now, with the plan allowance', () => {
    const state = ledger({
      plan: 'creator',
      allowance: 750,
      periodStart: '2026-01-01T00:00:00Z',
      periodEnd: '2026-02-01T00:00:00Z',
    });
    const [started] = decideReservation(state, undefined, { job: jobSpec('job_a') }, NOW);
    expect(started!.payload).toEqual({
      accountId: ACCOUNT,
      periodStart: '2026-04-01T00:00:00Z',
      periodEnd: '2026-05-01T00:00:00Z',
      allowance: 750,
    });
  });

  it.each([
    [
      'with a cause, ids derive from it',
      { causationId: 'evt_cmd' },
      ['evt_cmd:period-started', 'evt_cmd:reserved'],
      'evt_cmd',
    ],
    [
      'without one, ids are fresh event ids',
      {},
      [expect.stringMatching(/^evt_/), expect.stringMatching(/^evt_/)],
      null,
    ],
  ])('%s', (_name, options, ids, causationId) => {
    const state = ledger({ periodEnd: '2026-04-01T00:00:00Z' });
    const events = decideReservation(state, undefined, { job: jobSpec('job_a') }, NOW, options);
    expect(events.map((e) => e.id)).toEqual(ids);
    for (const e of events) {
      expect(e).toMatchObject({
        aggregateId: ACCOUNT,
        correlationId: 'job_a',
        causationId,
        occurredAt: NOW.toISOString(),
      });
    }
  });

  it('deciding the same command twice gives identical facts', () => {
    const cmd = { job: jobSpec('job_a') };
    expect(decideReservation(ledger(), undefined, cmd, NOW, { causationId: 'evt_1' })).toEqual(
      decideReservation(ledger(), undefined, cmd, NOW, { causationId: 'evt_1' }),
    );
  });
});

describe('decideSettlement', () => {
  const held = ledger({ reserved: 12, reservations: { job_a: 12 } });

  it.each([
    [
      'captured',
      undefined,
      { type: 'billing.credits-captured', payload: { accountId: ACCOUNT, jobId: 'job_a', amount: 12 } },
    ],
    [
      'released',
      'render timed out',
      {
        type: 'billing.credits-released',
        payload: { accountId: ACCOUNT, jobId: 'job_a', amount: 12, reason: 'render timed out' },
      },
    ],
    [
      'released',
      undefined,
      {
        type: 'billing.credits-released',
        payload: { accountId: ACCOUNT, jobId: 'job_a', amount: 12, reason: 'released' },
      },
    ],
  ] as const)('%s (reason %s)', (outcome, reason, expected) => {
    expect(shape(decideSettlement(held, 'job_a', outcome, reason))).toEqual([expected]);
  });

  it.each([
    ['unknown job', ledger(), 'captured'],
    ['captured before', ledger({ used: 12 }), 'captured'],
    ['released before, now captured', ledger(), 'captured'],
    ['captured before, now released', ledger({ used: 12 }), 'released'],
  ] as const)('%s yields nothing', (_name, state, outcome) => {
    expect(decideSettlement(state, 'job_a', outcome)).toEqual([]);
  });

  it.each([
    ['captured', 'captured', 12, 0],
    ['released', 'released', 0, 0],
  ] as const)('%s moves the ledger', (_name, outcome, used, reserved) => {
    const [fact] = decideSettlement(held, 'job_a', outcome, 'x', { causationId: 'evt_render', at: NOW });
    expect(fact).toMatchObject({
      id: `evt_render:${outcome}`,
      causationId: 'evt_render',
      correlationId: 'job_a',
      occurredAt: NOW.toISOString(),
    });
    const next = applyBillingFact(held, 'reserved', fact!)!;
    expect([next.ledger.used, next.ledger.reserved, next.job?.billing]).toEqual([used, reserved, outcome]);
  });
});
