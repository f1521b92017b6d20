import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeEvent, TOPICS, type JobSpec } from '@thumbforge/contracts';
import { admittedFacts, foldLedger, replayBilling } from '@thumbforge/domain';
import {
  ACCOUNT,
  billing,
  facts,
  jobSpec,
  renderFailed,
  renderSucceeded,
  until,
  type Billing,
} from '../test/harness.js';
import { unfolded } from '@thumbforge/event-log';
import { BILLING_GROUP } from './billing.consumer.js';
import {
  JOB_BILLING_COLLECTION,
  LEDGER_COLLECTION,
  type JobBillingDocument,
  type LedgerDocument,
} from './ledger/ledger-projection.js';

const running: Billing[] = [];

async function started(now?: string): Promise<Billing> {
  const b = billing(now);
  running.push(b);
  await b.consumer.onApplicationBootstrap();
  return b;
}

function openRequested(plan: 'free' | 'creator' = 'free') {
  return makeEvent(
    'billing.account-open-requested',
    ACCOUNT,
    { accountId: ACCOUNT, plan, apiAccess: true },
    { correlationId: ACCOUNT },
  );
}

function reservationRequested(job: JobSpec) {
  return makeEvent('billing.reservation-requested', ACCOUNT, { job }, { correlationId: job.jobId });
}

const count = (b: Billing, type: string) => facts(b).filter((e) => e.type === type).length;

async function openAccount(b: Billing, plan: 'free' | 'creator' = 'free') {
  await b.log.append(TOPICS.billing, [openRequested(plan)]);
  await until(() => count(b, 'billing.period-started') === 1);
}

async function reserve(b: Billing, job: JobSpec) {
  await b.log.append(TOPICS.billing, [reservationRequested(job)]);
  await until(() => facts(b).some((e) => e.correlationId === job.jobId));
}

afterEach(async () => {
  for (const b of running.splice(0)) await b.consumer.beforeApplicationShutdown();
});

describe('BillingConsumer', () => {
  it('answers an open-account command with facts caused by it', async () => {
    const b = await started();
    const [command] = await b.log.append(TOPICS.billing, [openRequested()]);
    await until(() => count(b, 'billing.period-started') === 1);
    expect(facts(b).map((e) => [e.type, e.id, e.causationId, e.correlationId])).toEqual([
      ['billing.account-opened', `${command!.id}:account-opened`, command!.id, ACCOUNT],
      ['billing.period-started', `${command!.id}:period-started`, command!.id, ACCOUNT],
    ]);
  });

  it('answers an account change', async () => {
    const b = await started();
    await openAccount(b);
    await b.log.append(TOPICS.billing, [
      makeEvent(
        'billing.account-change-requested',
        ACCOUNT,
        { accountId: ACCOUNT, plan: 'pro' },
        { correlationId: ACCOUNT },
      ),
    ]);
    await until(() => count(b, 'billing.account-changed') === 1);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ plan: 'pro', allowance: 2500 });
  });

  it.each([
    ['render.succeeded captures', renderSucceeded, 'billing.credits-captured', 10],
    ['render.failed releases', (job: JobSpec) => renderFailed(job), 'billing.credits-released', 0],
  ])('%s', async (_name, outcome, type, used) => {
    const b = await started();
    await openAccount(b);
    const job = jobSpec();
    await reserve(b, job);
    await b.log.append(TOPICS.jobs, [outcome(job)]);
    await until(() => count(b, type) === 1);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used, reserved: 0 });
  });

  it('a release carries the render error as its reason', async () => {
    const b = await started();
    await openAccount(b);
    const job = jobSpec();
    await reserve(b, job);
    await b.log.append(TOPICS.jobs, [renderFailed(job, 'Model unavailable')]);
    await until(() => count(b, 'billing.credits-released') === 1);
    expect(facts(b).at(-1)!.payload).toMatchObject({ reason: 'Model unavailable' });
  });

  it('a render outcome delivered twice settles once', async () => {
    const b = await started();
    await openAccount(b);
    const job = jobSpec();
    await reserve(b, job);
    const outcome = renderSucceeded(job, 'evt_render_once');
    await b.log.append(TOPICS.jobs, [outcome, outcome, renderFailed(job)]);
    const marker = jobSpec();
    await reserve(b, marker); // handled after the three outcomes: they are all done
    expect(count(b, 'billing.credits-captured')).toBe(1);
    expect(count(b, 'billing.credits-released')).toBe(0);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 10, reserved: 10 });
  });

  it('redelivery of everything after a crash before commit writes no new facts', async () => {
    const b = await started();
    await openAccount(b);
    const captured = jobSpec();
    const released = jobSpec();
    await reserve(b, captured);
    await reserve(b, released);
    await b.log.append(TOPICS.jobs, [renderSucceeded(captured), renderFailed(released)]);
    await until(() => count(b, 'billing.credits-released') === 1);
    await b.consumer.beforeApplicationShutdown();
    const before = facts(b);

    // a new process on the same log: fresh in-memory projection, group positions lost
    b.log.forgetCommitted(BILLING_GROUP);
    const fresh = billing(undefined, b.log);
    running.push(fresh);
    await fresh.consumer.onApplicationBootstrap();
    const marker = jobSpec();
    await fresh.log.append(TOPICS.billing, [reservationRequested(marker)]);
    await until(() => facts(fresh).some((e) => e.correlationId === marker.jobId));

    expect(facts(fresh).slice(0, before.length)).toEqual(before);
    expect(facts(fresh)).toHaveLength(before.length + 1);
  });

  it('50 concurrent reservation commands on a balance covering 20: exactly 20 reserved', async () => {
    const b = await started();
    await openAccount(b, 'creator');
    await reserve(b, jobSpec({ cost: 550 })); // 200 of 750 left: 20 jobs at 10
    const jobs = Array.from({ length: 50 }, () => jobSpec());
    await Promise.all(jobs.map((job) => b.log.append(TOPICS.billing, [reservationRequested(job)])));
    await until(() => count(b, 'billing.credits-reserved') + count(b, 'billing.credits-rejected') === 51);
    expect(count(b, 'billing.credits-reserved')).toBe(21);
    expect(count(b, 'billing.credits-rejected')).toBe(30);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 0, reserved: 750 });
  });

  it.each([
    ['a job of the public test key (no account)', renderSucceeded(jobSpec({ accountId: null }))],
    ['an unknown event version', { ...renderSucceeded(jobSpec()), version: 2 }],
  ])('ignores %s', async (_name, event) => {
    const b = await started();
    await openAccount(b);
    await b.log.append(TOPICS.jobs, [event]);
    await reserve(b, jobSpec());
    expect(facts(b).map((e) => e.type)).toEqual([
      'billing.account-opened',
      'billing.period-started',
      'billing.credits-reserved',
    ]);
  });

  it('the live projection equals a fold of the billing topic from scratch', async () => {
    const b = await started();
    await openAccount(b);
    const jobs = [jobSpec(), jobSpec(), jobSpec({ cost: 40 })];
    for (const job of jobs) await reserve(b, job);
    await b.log.append(TOPICS.jobs, [renderSucceeded(jobs[0]!), renderFailed(jobs[1]!)]);
    await until(() => count(b, 'billing.credits-released') === 1);
    const {
      id: _id,
      folded: _folded,
      ...live
    } = (await b.store.collection<{ id: string; folded?: unknown }>('billing_accounts').get(ACCOUNT))!;
    const replay = replayBilling(b.log.events(TOPICS.billing));
    expect(Object.fromEntries(replay.ledgers)).toEqual({ [ACCOUNT]: live });
    const billed = await b.store.collection<JobBillingDocument>(JOB_BILLING_COLLECTION).find({});
    expect(new Map(billed.map((job) => [job.id, job.billing]))).toEqual(replay.jobs);
    expect(Object.fromEntries(replay.jobs)).toEqual({
      [jobs[0]!.jobId]: 'captured',
      [jobs[1]!.jobId]: 'released',
      [jobs[2]!.jobId]: 'rejected',
    });
  });

  it('a failure between writing a job and writing its ledger leaves neither half-applied', async () => {
    const b = await started();
    await openAccount(b);
    // The job's billing is written, then the ledger's write fails once: the event is applied again.
    const ledgers = b.store.collection<LedgerDocument>(LEDGER_COLLECTION);
    const failed = vi.spyOn(ledgers, 'update').mockRejectedValueOnce(new Error('process died'));
    const job = jobSpec();
    await reserve(b, job);
    while ((await b.ledgers.ledger(ACCOUNT))?.reserved !== 10) await new Promise(setImmediate);
    expect(failed).toHaveBeenCalled();
    expect(await b.ledgers.jobBilling(job.jobId)).toBe('reserved');
    const { id: _id, ...live } = unfolded((await ledgers.get(ACCOUNT))!);
    expect(foldLedger(b.log.events(TOPICS.billing))).toEqual({ [ACCOUNT]: live });
  });

  it('a fact appended twice (a retried append: same id, a later offset) is folded once', async () => {
    const b = await started();
    await openAccount(b);
    const job = jobSpec();
    await reserve(b, job);
    const reserved = facts(b).find((e) => e.type === 'billing.credits-reserved')!;
    const { topic: _topic, partition: _partition, offset: _offset, ...envelope } = reserved;
    const [again] = await b.ledgers.commit(ACCOUNT, [envelope], reserved.fence);
    expect(again).toMatchObject({ id: reserved.id });
    expect(again!.offset).toBeGreaterThan(reserved.offset);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({
      reserved: 10,
      reservations: { [job.jobId]: 10 },
    });

    await b.log.append(TOPICS.jobs, [renderSucceeded(job)]);
    await until(() => count(b, 'billing.credits-captured') === 1);
    await b.ledgers.reached(facts(b).find((e) => e.type === 'billing.credits-captured')!);
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ used: 10, reserved: 0, reservations: {} });
    expect(await b.ledgers.jobBilling(job.jobId)).toBe('captured');
  });

  it('stamps its decisions with its owner epoch: the offset of the marker it appended first', async () => {
    const b = await started();
    await openAccount(b);
    await reserve(b, jobSpec());
    const [marker] = b.log.events(TOPICS.billing);
    expect(marker).toMatchObject({ type: 'log.owner-fenced', offset: 0, payload: { writer: BILLING_GROUP } });
    expect(facts(b).map((e) => e.fence)).toEqual([0, 0, 0]);
  });

  it("a decision stamped with an epoch older than the partition's latest marker is left out of the ledger", async () => {
    const b = await started();
    await openAccount(b);
    // Another replica takes the partition over: its marker lands before the stale decision does.
    const [takeover] = await b.log.append(
      TOPICS.billing,
      [makeEvent('log.owner-fenced', `${TOPICS.billing}:0`, { writer: BILLING_GROUP, partition: 0 })],
      { partition: 0 },
    );
    const stale = jobSpec();
    await b.reserveCredits.execute({ commandId: 'evt_stale', accountId: ACCOUNT, job: stale, fence: 0 });
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({ reserved: 0, reservations: {} });

    const fresh = jobSpec();
    await b.reserveCredits.execute({
      commandId: 'evt_fresh',
      accountId: ACCOUNT,
      job: fresh,
      fence: takeover!.offset,
    });
    expect(await b.ledgers.ledger(ACCOUNT)).toMatchObject({
      reserved: 10,
      reservations: { [fresh.jobId]: 10 },
    });
    const { id: _id, ...live } = unfolded(
      (await b.store.collection<LedgerDocument>(LEDGER_COLLECTION).get(ACCOUNT))!,
    );
    expect(foldLedger(admittedFacts(b.log.events(TOPICS.billing)))).toEqual({ [ACCOUNT]: live });
  });

  it('reports readiness of the ledger and the consumer', async () => {
    const b = await started();
    await until(() => b.readiness.snapshot().ready);
    expect(Object.keys(b.readiness.snapshot().components).sort()).toEqual([
      'billing.consumer',
      'billing.ledger',
    ]);
  });
});
