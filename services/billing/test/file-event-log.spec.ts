import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeEvent, TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { foldLedger } from '@thumbforge/domain';
import { FileEventLog } from '@thumbforge/event-log';
import { ACCOUNT, billing, jobSpec, renderFailed, renderSucceeded } from './harness.js';

/** Billing on the embedded durable log, as `npm start` runs it. */
describe('billing on the file event log', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function start() {
    const dir = await mkdtemp(join(tmpdir(), 'billing-'));
    const log = new FileEventLog({ dir, fsync: 'never', retryDelayMs: () => 1 });
    await log.open();
    const b = billing('2026-04-10T12:00:00.000Z', log);
    await b.consumer.onApplicationBootstrap();
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    cleanup.push(() => log.close());
    cleanup.push(() => b.consumer.beforeApplicationShutdown());
    return b;
  }

  async function billingFacts(log: FileEventLog): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    for await (const event of log.read(TOPICS.billing))
      if (!event.type.endsWith('-requested')) events.push(event);
    return events;
  }

  async function until(
    log: FileEventLog,
    predicate: (facts: StoredEvent[]) => boolean,
  ): Promise<StoredEvent[]> {
    for (;;) {
      const facts = await billingFacts(log);
      if (predicate(facts)) return facts;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  const ofType = (facts: StoredEvent[], type: string) => facts.filter((e) => e.type === type);

  it('50 concurrent reservations on a balance covering 20, then their outcomes: no overdraw, one settlement each', async () => {
    const b = await start();
    const log = b.log;
    await log.append(TOPICS.billing, [
      makeEvent('billing.account-open-requested', ACCOUNT, {
        accountId: ACCOUNT,
        plan: 'creator',
        apiAccess: true,
      }),
    ]);
    const big = jobSpec({ cost: 550 }); // 200 of 750 left: 20 jobs at 10
    await log.append(TOPICS.billing, [
      makeEvent('billing.reservation-requested', ACCOUNT, { job: big }, { correlationId: big.jobId }),
    ]);
    await until(log, (facts) => ofType(facts, 'billing.credits-reserved').length === 1);

    const jobs = Array.from({ length: 50 }, () => jobSpec());
    await Promise.all(
      jobs.map((job) =>
        log.append(TOPICS.billing, [
          makeEvent('billing.reservation-requested', ACCOUNT, { job }, { correlationId: job.jobId }),
        ]),
      ),
    );
    const decided = await until(
      log,
      (facts) =>
        ofType(facts, 'billing.credits-reserved').length +
          ofType(facts, 'billing.credits-rejected').length ===
        51,
    );
    const reserved = ofType(decided, 'billing.credits-reserved')
      .slice(1)
      .map((e) => (e.payload as { jobId: string }).jobId);
    expect(reserved).toHaveLength(20);
    expect(ofType(decided, 'billing.credits-rejected')).toHaveLength(30);

    // every reserved job ends, some twice (at-least-once delivery)
    const outcomes = reserved.flatMap((jobId, i) => {
      const job = jobs.find((j) => j.jobId === jobId)!;
      const event = i % 2 === 0 ? renderSucceeded(job) : renderFailed(job);
      return i % 5 === 0 ? [event, event] : [event];
    });
    await log.append(TOPICS.jobs, outcomes);
    const settled = await until(
      log,
      (facts) =>
        ofType(facts, 'billing.credits-captured').length +
          ofType(facts, 'billing.credits-released').length ===
        20,
    );
    expect(ofType(settled, 'billing.credits-captured')).toHaveLength(10);

    const ledger = (await b.ledgers.ledger(ACCOUNT))!;
    expect([ledger.used, ledger.reserved]).toEqual([100, 550]);
    const { id: _id, ...live } = ledger as typeof ledger & { id: string };
    expect(foldLedger(settled)).toEqual({ [ACCOUNT]: live });
  });
});
