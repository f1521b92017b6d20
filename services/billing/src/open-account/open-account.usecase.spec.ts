import { describe, expect, it } from 'vitest';
import { PLAN_TERMS, PLANS } from '@thumbforge/contracts';
import { ACCOUNT, billing, facts } from '../../test/harness.js';

describe('OpenAccountUseCase', () => {
  it.each(PLANS)('opens a %s account with its first period', async (plan) => {
    const b = billing('2026-04-10T12:00:00.000Z');
    await b.ledgers.start();
    const written = await b.openAccount.execute({
      commandId: 'evt_cmd',
      accountId: ACCOUNT,
      plan,
      apiAccess: true,
    });

    expect(written.map((e) => [e.type, e.id, e.aggregateId, e.correlationId, e.causationId])).toEqual([
      ['billing.account-opened', 'evt_cmd:account-opened', ACCOUNT, ACCOUNT, 'evt_cmd'],
      ['billing.period-started', 'evt_cmd:period-started', ACCOUNT, ACCOUNT, 'evt_cmd'],
    ]);
    // read-your-writes: the projection already holds the account when execute resolves
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({
      plan,
      apiAccess: true,
      allowance: PLAN_TERMS[plan].monthlyCredits,
      used: 0,
      periodStart: '2026-04-01T00:00:00Z',
      periodEnd: '2026-05-01T00:00:00Z',
    });
  });

  it.each([
    ['the same command again', 'evt_cmd', 'free'],
    ['another open for the same account', 'evt_other', 'pro'],
  ] as const)('%s changes nothing', async (_name, commandId, plan) => {
    const b = billing();
    await b.ledgers.start();
    await b.openAccount.execute({ commandId: 'evt_cmd', accountId: ACCOUNT, plan: 'free', apiAccess: false });
    const again = await b.openAccount.execute({ commandId, accountId: ACCOUNT, plan, apiAccess: true });
    expect(again).toEqual([]);
    expect(facts(b)).toHaveLength(2);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ plan: 'free', apiAccess: false });
  });
});
