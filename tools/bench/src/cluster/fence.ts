import { randomUUID } from 'node:crypto';
import { TOPICS, type JobSpec, type StoredEvent } from '@thumbforge/contracts';
import { exampleJobSpec } from '@thumbforge/contracts/testing';
import { LedgerProjection, OpenAccountUseCase, ReserveCreditsUseCase } from '@thumbforge/billing';
import { OwnerFence } from '@thumbforge/event-log';
import { KafkaEventLog } from '@thumbforge/event-log/kafka';
import { startInfrastructure } from '@thumbforge/infra';
import { systemClock, type Logger } from '@thumbforge/platform';
import { MongoProjectionStore } from '@thumbforge/projection-store/mongo';
import type { Progress } from './progress.js';
import { summarize, type LatencySummary } from './stats.js';

/** The fence may cost a reservation at most this much more than an unfenced one (median). */
export const FENCE_TARGET_RATIO = 1.25;

export interface FenceMeasurement {
  /** Reservations per variant. */
  reservations: number;
  unfenced: LatencySummary;
  fenced: LatencySummary;
  /** A new owner's start on a partition: marker appended and folded by its ledger. */
  takeover: LatencySummary;
}

const quiet = { warn: () => undefined } as unknown as Logger;

function job(accountId: string, n: number): JobSpec {
  return exampleJobSpec({
    jobId: `job_fence_${n}`,
    accountId,
    title: 'Fence',
    requestedAt: new Date().toISOString(),
  });
}

/**
 * Billing's reservation decision on real Kafka and FerretDB, with and without the owner fence: the
 * same use case and ledger projection the service runs, one business account, reservations one after
 * another, fenced and unfenced alternating so that drift on a shared machine hits both alike. The
 * fenced ones are decided through the fence as the consumer does: they carry the epoch, the ledger
 * looks up the partition's epoch before folding each fact, and the fence reads it once more after
 * the decision; the takeover figure is what a new owner pays once per partition it did not hold.
 */
export async function measureFenceCost(reservations: number, progress: Progress): Promise<FenceMeasurement> {
  progress.note('starting Kafka and FerretDB for the fence measurement');
  const infra = await startInfrastructure({ services: ['kafka', 'mongo'], onProgress: () => undefined });
  const log = new KafkaEventLog({ brokers: infra.kafka.brokers, clientId: 'thumbforge-bench-fence' });
  const store = new MongoProjectionStore({
    uri: `${infra.mongo.uri.replace(/\/+$/, '')}/thumbforge`,
    collectionPrefix: 'billing_',
  });
  const ledgers = new LedgerProjection(log, store);
  try {
    await log.open();
    await store.open();
    await ledgers.start();
    await ledgers.caughtUp;
    const accountId = `acc_fence${randomUUID().slice(0, 8)}`;
    const [opened] = await new OpenAccountUseCase(ledgers, systemClock).execute({
      commandId: `evt_open_${accountId}`,
      accountId,
      plan: 'business',
      apiAccess: true,
    });
    const fence = new OwnerFence({
      log,
      topic: TOPICS.billing,
      writer: 'bench',
      reached: (marker) => ledgers.reached(marker),
      current: (partition) => ledgers.epoch(partition),
    });
    const partition = opened!.partition;
    const takeovers: number[] = [];
    for (let i = 0; i < 20; i++) {
      // Away and back: a partition the fence holds already keeps its epoch and costs nothing.
      fence.assign([{ topic: 'bench.elsewhere', partition: 0 }]);
      const started = performance.now();
      fence.assign([{ topic: TOPICS.billing, partition }]);
      await fence.epoch(partition);
      takeovers.push(performance.now() - started);
    }

    const reserve = new ReserveCreditsUseCase(ledgers, systemClock, quiet);
    const times = { unfenced: [] as number[], fenced: [] as number[] };
    const bar = progress.start('fence: reservations', 2 * reservations);
    for (let n = 0; n < 2 * reservations; n++) {
      const fenced = n % 2 === 1;
      const commandId = `evt_fence_${n}`;
      const command = { commandId, accountId, job: job(accountId, n) };
      const started = performance.now();
      let facts: StoredEvent[] = [];
      if (fenced) {
        const subject = { id: commandId, topic: TOPICS.billing, partition };
        await fence.decide(subject, async (epoch) => {
          facts = await reserve.execute({ ...command, fence: epoch });
        });
      } else {
        facts = await reserve.execute(command);
      }
      (fenced ? times.fenced : times.unfenced).push(performance.now() - started);
      if (facts[0]?.type !== 'billing.credits-reserved') {
        throw new Error(`reservation ${n} was not reserved: ${facts[0]?.type ?? 'no fact'}`);
      }
      bar.update(n + 1);
    }
    bar.stop();
    fence.close();
    return {
      reservations,
      unfenced: summarize(times.unfenced),
      fenced: summarize(times.fenced),
      takeover: summarize(takeovers),
    };
  } finally {
    await ledgers.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    await log.close().catch(() => undefined);
    await infra.stop();
  }
}

/** The fence's rows: medians, the ratio against the unfenced baseline of the same run, PASS/FAIL. */
export function formatFenceReport(m: FenceMeasurement): string[] {
  const ratio = m.fenced.p50 / m.unfenced.p50;
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  return [
    `billing reservation decision on Kafka + FerretDB, ${m.reservations} unfenced and ${m.reservations} fenced, alternating:`,
    `  without the fence: p50 ${ms(m.unfenced.p50)}, p90 ${ms(m.unfenced.p90)}`,
    `  with the fence:    p50 ${ms(m.fenced.p50)}, p90 ${ms(m.fenced.p90)}`,
    `  fenced/unfenced p50 ${ratio.toFixed(2)}x (target <= ${FENCE_TARGET_RATIO}x): ` +
      `${ratio <= FENCE_TARGET_RATIO ? 'PASS' : 'FAIL'}`,
    `  a new owner's takeover of a partition (marker appended and folded), once per partition that changes hands: ` +
      `p50 ${ms(m.takeover.p50)}, p90 ${ms(m.takeover.p90)}`,
  ];
}
