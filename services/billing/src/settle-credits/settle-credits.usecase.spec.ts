import { describe, expect, it, vi } from 'vitest';
import { ACCOUNT, billing, facts, jobSpec, withAccount } from '../../test/harness.js';
import { ReservationNotYetKnownError } from './settle-credits.usecase.js';

async function reserved(cost = 12) {
  const b = billing();
  await withAccount(b, 'free');
  const job = jobSpec({ cost });
  await b.reserveCredits.execute({ commandId: 'evt_req', accountId: ACCOUNT, job });
  return { b, job };
}

describe('SettleCreditsUseCase', () => {
  it.each([
    ['captured', undefined, 'billing.credits-captured', { used: 12, reserved: 0 }, { amount: 12 }],
    [
      'released',
      'Render timed out',
      'billing.credits-released',
      { used: 0, reserved: 0 },
      { amount: 12, reason: 'Render timed out' },
    ],
  ] as const)('%s', async (outcome, reason, type, ledger, payload) => {
    const { b, job } = await reserved();
    const written = await b.settleCredits.execute({
      commandId: 'evt_render',
      accountId: ACCOUNT,
      jobId: job.jobId,
      outcome,
      reason,
    });

    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      type,
      id: `evt_render:${outcome}`,
      correlationId: job.jobId,
      causationId: 'evt_render',
      payload: { accountId: ACCOUNT, jobId: job.jobId, ...payload },
    });
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ ...ledger, reservations: {} });
    expect(await b.ledgers.jobBilling(job.jobId)).toBe(outcome);
  });

  it.each([
    ['captured', 'captured'],
    ['captured', 'released'],
    ['released', 'released'],
    ['released', 'captured'],
  ] as const)('after %s, a duplicate %s outcome yields nothing', async (first, second) => {
    const { b, job } = await reserved();
    await b.settleCredits.execute({
      commandId: 'evt_render',
      accountId: ACCOUNT,
      jobId: job.jobId,
      outcome: first,
    });
    const before = await b.ledgers.ledger(ACCOUNT);
    expect(
      await b.settleCredits.execute({
        commandId: 'evt_render',
        accountId: ACCOUNT,
        jobId: job.jobId,
        outcome: second,
      }),
    ).toEqual([]);
    expect(await b.ledgers.ledger(ACCOUNT)).toEqual(before);
  });

  it('concurrent duplicate captures charge once', async () => {
    const { b, job } = await reserved();
    await Promise.all(
      Array.from({ length: 5 }, () =>
        b.settleCredits.execute({
          commandId: 'evt_render',
          accountId: ACCOUNT,
          jobId: job.jobId,
          outcome: 'captured',
        }),
      ),
    );
    expect(facts(b).filter((e) => e.type === 'billing.credits-captured')).toHaveLength(1);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 12, reserved: 0 });
  });

  it('a rejected job has nothing to settle', async () => {
    const { b } = await reserved();
    const job = jobSpec({ cost: 100 });
    await b.reserveCredits.execute({ commandId: 'evt_big', accountId: ACCOUNT, job });
    expect(
      await b.settleCredits.execute({
        commandId: 'evt_r',
        accountId: ACCOUNT,
        jobId: job.jobId,
        outcome: 'released',
      }),
    ).toEqual([]);
  });

  it('an unknown account is ignored', async () => {
    const b = billing();
    await b.ledgers.start();
    expect(
      await b.settleCredits.execute({
        commandId: 'evt_r',
        accountId: ACCOUNT,
        jobId: 'job_x',
        outcome: 'captured',
      }),
    ).toEqual([]);
  });

  it('an outcome whose reservation is not on the log fails once the ledger holds the whole log, so the log retries it', async () => {
    const { b } = await reserved();
    const reachedEnds = vi.spyOn(b.ledgers, 'reachedEnds');
    await expect(
      b.settleCredits.execute({
        commandId: 'evt_r',
        accountId: ACCOUNT,
        jobId: 'job_unseen',
        outcome: 'captured',
      }),
    ).rejects.toBeInstanceOf(ReservationNotYetKnownError);
    expect(reachedEnds).toHaveBeenCalledTimes(1);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 0, reserved: 12 });
  });

  it("settles a job whose billing is projected and whose ledger is not yet (between the projection's two writes)", async () => {
    const b = billing();
    await withAccount(b, 'free');
    const unreserved = await b.ledgers.ledger(ACCOUNT);
    const job = jobSpec({ cost: 12 });
    await b.reserveCredits.execute({ commandId: 'evt_req', accountId: ACCOUNT, job });
    const ledger = vi.spyOn(b.ledgers, 'ledger').mockResolvedValueOnce(unreserved);
    const written = await b.settleCredits.execute({
      commandId: 'evt_render',
      accountId: ACCOUNT,
      jobId: job.jobId,
      outcome: 'captured',
    });
    expect(written.map((e) => e.type)).toEqual(['billing.credits-captured']);
    expect(ledger).toHaveBeenCalledTimes(2);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 12, reserved: 0 });
  });

  describe('an outcome that reaches this replica before its reservation does', () => {
    /** This replica's ledger behind the log until `catchUp` runs: lookups miss, `reachedEnds` waits. */
    function lagging(b: ReturnType<typeof billing>) {
      let caughtUp = false;
      let catchUp: () => void = () => undefined;
      const reachedEnds = vi.spyOn(b.ledgers, 'reachedEnds').mockImplementation(
        () =>
          new Promise<void>((resolve) => {
            catchUp = () => {
              caughtUp = true;
              resolve();
            };
          }),
      );
      const jobBilling = b.ledgers.jobBilling.bind(b.ledgers);
      vi.spyOn(b.ledgers, 'jobBilling').mockImplementation(async (jobId) =>
        caughtUp ? jobBilling(jobId) : undefined,
      );
      return { reachedEnds, catchUp: () => catchUp() };
    }

    it('waits as long as the ledger takes to hold the whole log, then settles, spending no delivery', async () => {
      const { b, job } = await reserved();
      const ledger = lagging(b);
      let settled = false;
      const pending = b.settleCredits
        .execute({ commandId: 'evt_render', accountId: ACCOUNT, jobId: job.jobId, outcome: 'captured' })
        .finally(() => (settled = true));
      // Far past the old per-delivery wait's first looks: still waiting, nothing failed.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      expect(ledger.reachedEnds).toHaveBeenCalledTimes(1);
      ledger.catchUp();
      expect((await pending).map((e) => e.type)).toEqual(['billing.credits-captured']);
      expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 12, reserved: 0 });
    });

    it('stops waiting when its signal fires (the replica stopping)', async () => {
      const { b, job } = await reserved();
      lagging(b);
      const stopping = new AbortController();
      const pending = b.settleCredits.execute(
        { commandId: 'evt_r', accountId: ACCOUNT, jobId: job.jobId, outcome: 'captured' },
        stopping.signal,
      );
      setTimeout(() => stopping.abort(), 30);
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 0, reserved: 12 });
    });

    it("does not hold the account's lock while it waits", async () => {
      const { b, job } = await reserved();
      const ledger = lagging(b);
      const order: string[] = [];
      const pending = b.settleCredits
        .execute({ commandId: 'evt_r', accountId: ACCOUNT, jobId: job.jobId, outcome: 'captured' })
        .then(() => order.push('settled'));
      await b.reserveCredits.execute({
        commandId: 'evt_req2',
        accountId: ACCOUNT,
        job: jobSpec({ cost: 3 }),
      });
      order.push('reserved');
      ledger.catchUp();
      await pending;
      expect(order).toEqual(['reserved', 'settled']);
      expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 12, reserved: 3 });
    });
  });
});
