import { makeEvent, TOPICS } from '@thumbforge/contracts';
import { asSecondWriter } from '@thumbforge/projection-store/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACCOUNT, billing, jobSpec, withAccount, type Billing } from '../../test/harness.js';
import { silentLogger } from '../../test/fakes.js';
import { ReserveCreditsUseCase } from '../reserve-credits/reserve-credits.usecase.js';
import { EPOCH_COLLECTION, JOB_BILLING_COLLECTION, LedgerProjection } from './ledger-projection.js';

const running: LedgerProjection[] = [];

afterEach(async () => {
  for (const ledgers of running.splice(0)) await ledgers.close();
});

/** Another replica's takeover marker on the account's partition, folded by `b`'s ledger. */
async function takenOver(b: Billing): Promise<number> {
  const [marker] = await b.log.append(
    TOPICS.billing,
    [makeEvent('log.owner-fenced', `${TOPICS.billing}:0`, { writer: 'billing', partition: 0 })],
    { partition: 0 },
  );
  await b.ledgers.reached(marker!);
  return marker!.offset;
}

describe('LedgerProjection', () => {
  // The epoch of a partition before a fact comes from the event folded right before it when this
  // process folded that one, and from the store otherwise (a writer resuming where another stopped).
  it.each([
    { writer: 'the process that folded the marker', resumed: false },
    { writer: 'a writer resuming after the marker was folded', resumed: true },
  ])('$writer drops a fact stamped with the epoch before the marker', async ({ resumed }) => {
    const b = billing();
    running.push(b.ledgers);
    await withAccount(b, 'creator');
    const epoch = await takenOver(b);
    let ledgers = b.ledgers;
    if (resumed) {
      await b.ledgers.close();
      ledgers = new LedgerProjection(b.log, b.store);
      running.push(ledgers);
      await ledgers.start();
      await ledgers.caughtUp;
    }
    const reserve = new ReserveCreditsUseCase(ledgers, b.clock, silentLogger);
    const stale = jobSpec();
    await reserve.execute({ commandId: 'evt_stale', accountId: ACCOUNT, job: stale, fence: epoch - 1 });
    expect(await ledgers.ledger(ACCOUNT)).toMatchObject({ reserved: 0, reservations: {} });

    const fresh = jobSpec();
    await reserve.execute({ commandId: 'evt_fresh', accountId: ACCOUNT, job: fresh, fence: epoch });
    const later = jobSpec();
    await reserve.execute({ commandId: 'evt_later', accountId: ACCOUNT, job: later, fence: epoch });
    expect(await ledgers.ledger(ACCOUNT)).toMatchObject({
      reserved: 20,
      reservations: { [fresh.jobId]: 10, [later.jobId]: 10 },
    });
  });

  it('forgets its cached job documents for a fact another writer applied first', async () => {
    const b = billing();
    running.push(b.ledgers);
    await withAccount(b, 'creator');
    const job = jobSpec();
    await b.reserveCredits.execute({ commandId: 'evt_req', accountId: ACCOUNT, job });
    // A second writer over the same documents, from the start of the log: every fact is folded already.
    const forget = vi.fn();
    const store = asSecondWriter(b.store, forget, [JOB_BILLING_COLLECTION]);
    const late = new LedgerProjection(b.log, store);
    running.push(late);
    await late.start();
    await late.reachedEnds();
    expect(forget).toHaveBeenCalledWith(job.jobId);
    expect(await late.jobBilling(job.jobId)).toBe('reserved');
  });

  it('tells the epoch after its own decision from its fold on the writer, and from the store elsewhere', async () => {
    const b = billing();
    running.push(b.ledgers);
    await withAccount(b, 'creator');
    const epoch = await takenOver(b);
    const reads = vi.spyOn(b.store.collection(EPOCH_COLLECTION), 'get');
    const reserve = new ReserveCreditsUseCase(b.ledgers, b.clock, silentLogger);
    await reserve.execute({ commandId: 'evt_stale', accountId: ACCOUNT, job: jobSpec(), fence: epoch - 1 });
    expect(await b.ledgers.epoch(0)).toBe(epoch);
    expect(reads).not.toHaveBeenCalled();

    // A replica that is not the writer has folded nothing: only the store knows.
    const reader = new LedgerProjection(b.log, b.store);
    expect(await reader.epoch(0)).toBe(epoch);
    expect(reads).toHaveBeenCalledTimes(1);
  });
});
