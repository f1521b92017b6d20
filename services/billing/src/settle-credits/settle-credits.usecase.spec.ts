import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../test/fakes.js';
import { ACCOUNT, billing, facts, jobSpec, withAccount } from '../../test/harness.js';
import { ReservationNotYetKnownError, SettleCreditsUseCase } from './settle-credits.usecase.js';

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

  it('a job whose reservation is not projected yet is retried, not dropped', async () => {
    const { b } = await reserved();
    await expect(
      b.settleCredits.execute({
        commandId: 'evt_r',
        accountId: ACCOUNT,
        jobId: 'job_unseen',
        outcome: 'captured',
      }),
    ).rejects.toBeInstanceOf(ReservationNotYetKnownError);
  });

  it("a job whose billing is projected and whose ledger is not yet (between the projection's two writes) is retried", async () => {
    const b = billing();
    await withAccount(b, 'free');
    const unreserved = await b.ledgers.ledger(ACCOUNT);
    const job = jobSpec({ cost: 12 });
    await b.reserveCredits.execute({ commandId: 'evt_req', accountId: ACCOUNT, job });
    vi.spyOn(b.ledgers, 'ledger').mockResolvedValueOnce(unreserved);
    const outcome = {
      commandId: 'evt_render',
      accountId: ACCOUNT,
      jobId: job.jobId,
      outcome: 'captured',
    } as const;
    await expect(b.settleCredits.execute(outcome)).rejects.toBeInstanceOf(ReservationNotYetKnownError);
    // Retried once the ledger holds the reservation, the outcome captures it.
    expect(await b.settleCredits.execute(outcome)).toHaveLength(1);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 12, reserved: 0 });
  });

  describe('waiting for a reservation this replica has not projected yet', () => {
    const waiting = (b: ReturnType<typeof billing>, waitMs: number) =>
      new SettleCreditsUseCase(b.ledgers, b.clock, silentLogger, waitMs);

    it('looks again until the projection holds it, then settles', async () => {
      const { b, job } = await reserved();
      const jobBilling = vi
        .spyOn(b.ledgers, 'jobBilling')
        .mockResolvedValueOnce(undefined)
        .mockResolvedValueOnce(undefined);
      const written = await waiting(b, 5_000).execute({
        commandId: 'evt_render',
        accountId: ACCOUNT,
        jobId: job.jobId,
        outcome: 'captured',
      });
      expect(written.map((e) => e.type)).toEqual(['billing.credits-captured']);
      expect(jobBilling).toHaveBeenCalledTimes(3);
      expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 12, reserved: 0 });
    });

    it('fails once its wait is over, so the log retries the outcome', async () => {
      const { b } = await reserved();
      const jobBilling = vi.spyOn(b.ledgers, 'jobBilling');
      await expect(
        waiting(b, 120).execute({
          commandId: 'evt_r',
          accountId: ACCOUNT,
          jobId: 'job_unseen',
          outcome: 'released',
        }),
      ).rejects.toBeInstanceOf(ReservationNotYetKnownError);
      // 25, 50, then what is left of the 120 ms: looked at more than once, not spun.
      expect(jobBilling.mock.calls.length).toBeGreaterThanOrEqual(3);
      expect(jobBilling.mock.calls.length).toBeLessThanOrEqual(5);
      expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 0, reserved: 12 });
    });

    it('stops waiting when its signal fires (the replica stopping)', async () => {
      const { b } = await reserved();
      const stopping = new AbortController();
      const pending = waiting(b, 60_000).execute(
        { commandId: 'evt_r', accountId: ACCOUNT, jobId: 'job_unseen', outcome: 'captured' },
        stopping.signal,
      );
      setTimeout(() => stopping.abort(), 30);
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 0, reserved: 12 });
    });

    it("does not hold the account's lock while it waits", async () => {
      const { b } = await reserved();
      const order: string[] = [];
      const pending = waiting(b, 300)
        .execute({ commandId: 'evt_r', accountId: ACCOUNT, jobId: 'job_unseen', outcome: 'captured' })
        .catch((error: unknown) => order.push((error as Error).name));
      await b.reserveCredits.execute({
        commandId: 'evt_req2',
        accountId: ACCOUNT,
        job: jobSpec({ cost: 3 }),
      });
      order.push('reserved');
      await pending;
      expect(order).toEqual(['reserved', 'ReservationNotYetKnownError']);
      expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ reserved: 15 });
    });
  });
});
