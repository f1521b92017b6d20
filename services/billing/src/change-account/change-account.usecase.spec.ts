import { describe, expect, it } from 'vitest';
import type { AccountLedger } from '@thumbforge/domain';
import { ACCOUNT, billing, facts, withAccount } from '../../test/harness.js';

describe('ChangeAccountUseCase', () => {
  it.each<[string, { plan?: 'pro' | 'free'; apiAccess?: boolean }, Partial<AccountLedger>]>([
    [
      'an upgrade applies the new allowance at once',
      { plan: 'pro' },
      { plan: 'pro', allowance: 2500, used: 30 },
    ],
    [
      'API access can be turned off',
      { apiAccess: false },
      { plan: 'creator', apiAccess: false, allowance: 750 },
    ],
    [
      'both at once',
      { plan: 'free', apiAccess: false },
      { plan: 'free', apiAccess: false, allowance: 50, used: 30 },
    ],
  ])('%s', async (_name, change, expected) => {
    const b = billing();
    await withAccount(b, 'creator', 30);
    const written = await b.changeAccount.execute({ commandId: 'evt_chg', accountId: ACCOUNT, ...change });

    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      type: 'billing.account-changed',
      id: 'evt_chg:account-changed',
      correlationId: ACCOUNT,
      causationId: 'evt_chg',
      payload: { accountId: ACCOUNT, ...change },
    });
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject(expected);
  });

  it('a change that repeats the current values is still answered', async () => {
    const b = billing();
    await withAccount(b, 'creator');
    const written = await b.changeAccount.execute({
      commandId: 'evt_chg',
      accountId: ACCOUNT,
      plan: 'creator',
    });
    expect(written.map((e) => e.type)).toEqual(['billing.account-changed']);
  });

  it('an unknown account is ignored', async () => {
    const b = billing();
    await b.ledgers.start();
    expect(
      await b.changeAccount.execute({ commandId: 'evt_chg', accountId: 'acc_nobody', plan: 'pro' }),
    ).toEqual([]);
    expect(facts(b)).toEqual([]);
  });
});
