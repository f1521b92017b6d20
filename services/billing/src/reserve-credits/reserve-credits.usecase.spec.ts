import { describe, expect, it } from 'vitest';
import type { EventPayloads } from '@thumbforge/contracts';
import { applyBillingFact, remaining, type AccountLedger } from '@thumbforge/domain';
import { ACCOUNT, billing, facts, jobSpec, withAccount } from '../../test/harness.js';

describe('ReserveCreditsUseCase', () => {
  it('reserves the job cost and answers with the job', async () => {
    const b = billing();
    await withAccount(b, 'free');
    const job = jobSpec({ cost: 14 });
    const written = await b.reserveCredits.execute({ commandId: 'evt_req', accountId: ACCOUNT, job });

    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      type: 'billing.credits-reserved',
      id: 'evt_req:reserved',
      aggregateId: ACCOUNT,
      correlationId: job.jobId,
      causationId: 'evt_req',
      payload: { accountId: ACCOUNT, jobId: job.jobId, amount: 14, job },
    });
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({
      reserved: 14,
      reservations: { [job.jobId]: 14 },
    });
  });

  it.each([
    ['exactly covered', 40, 10, 'billing.credits-reserved'],
    ['one credit short', 41, 10, 'billing.credits-rejected'],
    ['more than the whole allowance', 0, 60, 'billing.credits-rejected'],
  ])('%s → %s', async (_name, used, cost, type) => {
    const b = billing();
    await withAccount(b, 'free', used);
    const [fact] = await b.reserveCredits.execute({
      commandId: 'evt_req',
      accountId: ACCOUNT,
      job: jobSpec({ cost }),
    });
    expect(fact!.type).toBe(type);
  });

  it('a rejection carries the 429 reason', async () => {
    const b = billing();
    await withAccount(b, 'free', 45);
    const [fact] = await b.reserveCredits.execute({
      commandId: 'evt_req',
      accountId: ACCOUNT,
      job: jobSpec(),
    });
    expect(fact!.id).toBe('evt_req:rejected');
    expect(fact!.payload).toMatchObject({
      amount: 10,
      remaining: 5,
      reason: { status: 429, code: 'GENERATION_LIMIT_EXCEEDED', error: 'Generation limit exceeded' },
    });
  });

  it.each([
    ['reserved', 0],
    ['rejected', 50],
  ])('a re-sent command for a job already %s yields nothing', async (_name, used) => {
    const b = billing();
    await withAccount(b, 'free', used);
    const job = jobSpec();
    const first = await b.reserveCredits.execute({ commandId: 'evt_req', accountId: ACCOUNT, job });
    expect(first).toHaveLength(1);
    const before = await b.ledgers.ledger(ACCOUNT);
    expect(await b.reserveCredits.execute({ commandId: 'evt_req', accountId: ACCOUNT, job })).toEqual([]);
    expect(await b.reserveCredits.execute({ commandId: 'evt_req2', accountId: ACCOUNT, job })).toEqual([]);
    expect(await b.ledgers.ledger(ACCOUNT)).toEqual(before);
  });

  it('a reservation for an unknown account is ignored', async () => {
    const b = billing();
    await b.ledgers.start();
    expect(
      await b.reserveCredits.execute({ commandId: 'evt_req', accountId: ACCOUNT, job: jobSpec() }),
    ).toEqual([]);
    expect(facts(b)).toEqual([]);
  });

  it('50 concurrent reservations on a balance covering 20: exactly 20 reserved, never overdrawn', async () => {
    const b = billing();
    await withAccount(b, 'creator', 550); // 200 of 750 left: 20 jobs at 10
    const before = facts(b).length;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        b.reserveCredits.execute({ commandId: `evt_req${i}`, accountId: ACCOUNT, job: jobSpec() }),
      ),
    );

    const types = results.flat().map((e) => e.type);
    expect(types.filter((t) => t === 'billing.credits-reserved')).toHaveLength(20);
    expect(types.filter((t) => t === 'billing.credits-rejected')).toHaveLength(30);
    const ledger = (await b.ledgers.ledger(ACCOUNT))!;
    expect([ledger.used, ledger.reserved, remaining(ledger)]).toEqual([550, 200, 0]);

    // every prefix of the log, as a replay would see it, stays within the allowance
    let state: AccountLedger | undefined;
    for (const [i, fact] of facts(b).entries()) {
      // Every job is decided once here, so no fact needs its job's billing so far.
      state = applyBillingFact(state, undefined, fact)?.ledger ?? state;
      if (i < before) continue;
      expect(state!.used + state!.reserved).toBeLessThanOrEqual(state!.allowance);
      if (fact.type === 'billing.credits-rejected') {
        expect((fact.payload as EventPayloads['billing.credits-rejected']).remaining).toBe(0);
      }
    }
  });

  it('the first reservation of a new month starts the period once', async () => {
    const b = billing('2026-01-20T10:00:00.000Z');
    await withAccount(b, 'free', 50);
    const [rejected] = await b.reserveCredits.execute({
      commandId: 'evt_jan',
      accountId: ACCOUNT,
      job: jobSpec(),
    });
    expect(rejected!.type).toBe('billing.credits-rejected');

    b.clock.set('2026-02-01T00:00:00.000Z');
    const first = await b.reserveCredits.execute({
      commandId: 'evt_feb1',
      accountId: ACCOUNT,
      job: jobSpec(),
    });
    const second = await b.reserveCredits.execute({
      commandId: 'evt_feb2',
      accountId: ACCOUNT,
      job: jobSpec(),
    });

    expect(first.map((e) => [e.type, e.id])).toEqual([
      ['billing.period-started', 'evt_feb1:period-started'],
      ['billing.credits-reserved', 'evt_feb1:reserved'],
    ]);
    expect(first[0]!.payload).toEqual({
      accountId: ACCOUNT,
      periodStart: '2026-02-01T00:00:00Z',
      periodEnd: '2026-03-01T00:00:00Z',
      allowance: 50,
    });
    expect(second.map((e) => e.type)).toEqual(['billing.credits-reserved']);
    expect(facts(b).filter((e) => e.type === 'billing.period-started')).toHaveLength(2); // opening + February
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({
      used: 0,
      reserved: 20,
      periodStart: '2026-02-01T00:00:00Z',
    });
  });
});
