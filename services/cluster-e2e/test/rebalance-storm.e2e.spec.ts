import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { makeEvent, TOPICS, type JobSpec, type StoredEvent } from '@thumbforge/contracts';
import { exampleJobSpec } from '@thumbforge/contracts/testing';
import {
  admittedFacts,
  emptyBillingReplay,
  foldBillingEvent,
  foldLedger,
  isBillingFact,
  isOwnerFenced,
  type AccountLedger,
} from '@thumbforge/domain';
import { unfolded, type FoldedDocument } from '@thumbforge/event-log';
import { createKeyPartitioner, KafkaEventLog } from '@thumbforge/event-log/kafka';
import { GatewayReadModel, RebuildUseCase } from '@thumbforge/gateway';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';
import { clusterEnv, freePort, serviceMain } from '@thumbforge/local-cluster';
import { ReadinessRegistry } from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { MongoProjectionStore } from '@thumbforge/projection-store/mongo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Reservations in the storm (STORM_JOBS overrides it when reproducing by hand; STORM_LOG_DIR keeps
 * every replica's output there, one file per process).
 */
const JOBS = Number(process.env.STORM_JOBS ?? 2_000);
/** creator: 750 credits, 75 jobs at 10; every account asks for far more. */
const PLAN = 'creator';
const COST = 10;
const SLOTS = 3;
/** KAFKA_PARTITIONS' default: two partitions of each topic per replica slot. */
const PARTITIONS = 6;
/**
 * Accounts are named so that each partition holds as many, as a real population of accounts spreads:
 * a partition decides one command after another, so a partition holding more than its share would
 * drain alone long after the others.
 */
const ACCOUNTS_PER_PARTITION = 3;
const ACCOUNTS = ACCOUNTS_PER_PARTITION * PARTITIONS;
const SESSION_TIMEOUT_MS = 6_000;
/** Reservation commands appended per second while the storm runs. */
const RATE = 40;
/**
 * How long the backlog may take to drain once the storm is over: while partitions move every few
 * hundred milliseconds a part of the commands waits for the group to settle, and the rest is decided
 * at the pace of FerretDB on a shared machine.
 */
const DRAIN_MS = 20 * 60_000;

function spreadAccounts(topic: string): string[] {
  const partitionOf = createKeyPartitioner();
  const taken = new Map<number, number>();
  const accounts: string[] = [];
  for (let n = 0; accounts.length < ACCOUNTS; n++) {
    const accountId = `acc_storm${n}`;
    const partition = partitionOf(topic, accountId, PARTITIONS);
    if ((taken.get(partition) ?? 0) === ACCOUNTS_PER_PARTITION) continue;
    taken.set(partition, (taken.get(partition) ?? 0) + 1);
    accounts.push(accountId);
  }
  return accounts;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (from: number, to: number) => Math.round((to - from) / 1000);
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');

interface Replica {
  url: string;
  child: ChildProcess;
  exited: Promise<void>;
  output: string[];
  paused: boolean;
}

function job(accountId: string, n: number): JobSpec {
  const jobId = `job_storm_${accountId}_${n}`;
  return exampleJobSpec({
    jobId,
    accountId,
    title: 'Storm',
    cost: COST,
    requestedAt: new Date().toISOString(),
  });
}

/**
 * What the storm's stand-in renderer reports for a reservation: every third job fails, so its credits
 * are released while the storm runs and later reservations of the account can use them; the others
 * are still rendering.
 */
function outcome(reserved: StoredEvent) {
  const { jobId, accountId } = reserved.payload as { jobId: string; accountId: string };
  if (Number.parseInt(jobId.split('_').at(-1)!, 10) % 3 !== 0) return undefined;
  return makeEvent(
    'render.failed',
    jobId,
    { jobId, accountId, error: 'boom', webhookUrl: null },
    { id: `${reserved.id}:outcome`, correlationId: jobId },
  );
}

async function readAll(log: KafkaEventLog, topic: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of log.read(topic)) events.push(event);
  return events;
}

/**
 * Billing's one writer per account, while its partitions never stop moving: three replica slots, and
 * every few hundred milliseconds a replica is started, stopped, killed with SIGKILL, or frozen with
 * SIGSTOP past the session timeout (a zombie that wakes up and finishes its decision after its
 * partitions moved on). Meanwhile thousands of reservations run against balances that cover a part
 * of them, and a stand-in renderer captures or releases every reservation it sees.
 */
describe('billing under a rebalance storm on real Kafka', () => {
  let infra: RunningInfrastructure;
  let env: Record<string, string>;
  let client: KafkaEventLog;
  let billingStore: MongoProjectionStore;
  let readModel: GatewayReadModel;
  const slots: (Replica | undefined)[] = Array.from({ length: SLOTS });
  /** One port per slot: a slot is started again only once its last process has exited. */
  const ports: number[] = [];
  const counts = { started: 0, stopped: 0, killed: 0, paused: 0 };

  function launch(slot: number): Replica {
    const port = ports[slot]!;
    const child = spawn(process.execPath, [serviceMain('billing')], {
      env: { ...process.env, ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    const collect = (chunk: string) => {
      if (process.env.STORM_LOG_DIR)
        appendFileSync(join(process.env.STORM_LOG_DIR, `billing-${child.pid}.log`), chunk);
      output.push(...chunk.split('\n').filter(Boolean));
      output.splice(0, Math.max(0, output.length - 60));
    };
    child.stdout!.setEncoding('utf8').on('data', collect);
    child.stderr!.setEncoding('utf8').on('data', collect);
    const replica: Replica = {
      url: `http://127.0.0.1:${port}`,
      child,
      output,
      paused: false,
      exited: new Promise((resolve) => child.on('exit', () => resolve())),
    };
    void replica.exited.then(() => {
      if (slots[slot] === replica) slots[slot] = undefined;
    });
    slots[slot] = replica;
    counts.started++;
    return replica;
  }

  async function ready(replica: Replica): Promise<void> {
    for (;;) {
      if (replica.child.exitCode !== null) throw new Error(`billing exited:\n${replica.output.join('\n')}`);
      const res = await fetch(`${replica.url}/health/ready`).catch(() => undefined);
      if (res?.status === 200) return;
      await sleep(200);
    }
  }

  beforeAll(async () => {
    infra = await startInfrastructure({ services: ['kafka', 'mongo', 's3'], onProgress: () => {} });
    env = {
      ...clusterEnv(infra, randomBytes(24).toString('hex')),
      LOG_LEVEL: 'warn',
      KAFKA_PARTITIONS: String(PARTITIONS),
      KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    };
    for (let slot = 0; slot < SLOTS; slot++) ports.push(await freePort());
    const brokers = infra.kafka.brokers;
    client = new KafkaEventLog({ brokers, partitions: PARTITIONS, sessionTimeoutMs: SESSION_TIMEOUT_MS });
    await client.open();
    await client.createTopics([TOPICS.billing, TOPICS.jobs, TOPICS.webhooks, TOPICS.gateway]);
    const uri = env.MONGODB_URI!;
    billingStore = new MongoProjectionStore({ uri, collectionPrefix: 'billing_' });
    await billingStore.open();
    // The gateway's live read model folds into memory: what is checked is that its consumers, reaching
    // the topics in their own order, end where a rebuild from Kafka does; billing's FerretDB documents
    // are compared with the log on their own (check 3).
    readModel = new GatewayReadModel(client, new MemoryProjectionStore(), new ReadinessRegistry());
  }, 600_000);

  afterAll(async () => {
    for (const replica of slots) {
      if (!replica) continue;
      if (replica.paused) replica.child.kill('SIGCONT');
      replica.child.kill('SIGKILL');
      await replica.exited;
    }
    await readModel?.close();
    await billingStore?.close();
    await client?.close();
    await infra?.stop();
  });

  it(
    `${JOBS} reservations while replicas join, leave, die and freeze: no overdraw at any point, each decided once, rebuilds equal the read models`,
    async () => {
      const next = Math.random;
      const began = Date.now();
      const accounts = spreadAccounts(TOPICS.billing);
      await Promise.all(Array.from({ length: SLOTS }, (_, slot) => ready(launch(slot))));
      await client.append(
        TOPICS.billing,
        accounts.map((accountId) =>
          makeEvent('billing.account-open-requested', accountId, { accountId, plan: PLAN, apiAccess: true }),
        ),
      );

      // The gateway's live read model follows the storm as it would in production.
      await readModel.start();
      // What the drain waits for is watched on one tail of the billing topic, not by re-reading it.
      const seen: StoredEvent[] = [];
      const observer = await client.subscribe({
        group: 'storm.observer',
        topics: [TOPICS.billing],
        from: 'beginning',
        handle: async (event) => {
          seen.push(event);
        },
      });

      // The stand-in renderer: one outcome per reservation it sees, as rendering would.
      const rendered = new Set<string>();
      const renderer = await client.subscribe({
        group: 'storm.renderer',
        topics: [TOPICS.billing],
        from: 'beginning',
        handle: async (event) => {
          if (event.type !== 'billing.credits-reserved') return;
          const { jobId } = event.payload as { jobId: string };
          if (rendered.has(jobId)) return;
          const failed = outcome(event);
          // Marked only once its outcome is on the log: a failed append is retried, not skipped.
          if (failed) await client.append(TOPICS.jobs, [failed]);
          rendered.add(jobId);
        },
      });

      let sending = true;
      const storm = (async () => {
        while (sending) {
          await sleep(250 + next() * 400);
          const live = slots.flatMap((r, slot) => (r && !r.paused ? [slot] : []));
          const empty = slots.flatMap((r, slot) => (r ? [] : [slot]));
          const roll = next();
          if (empty.length > 0 && (roll < 0.4 || live.length <= 1)) {
            launch(empty[Math.floor(next() * empty.length)]!);
            continue;
          }
          if (live.length <= 1) continue;
          const replica = slots[live[Math.floor(next() * live.length)]!]!;
          if (roll < 0.7) {
            replica.child.kill('SIGTERM');
            counts.stopped++;
          } else if (roll < 0.88) {
            replica.child.kill('SIGKILL');
            counts.killed++;
          } else {
            // Frozen past the session timeout: its partitions move on, then it wakes up mid-decision.
            replica.child.kill('SIGSTOP');
            replica.paused = true;
            counts.paused++;
            setTimeout(() => {
              replica.child.kill('SIGCONT');
              replica.paused = false;
            }, SESSION_TIMEOUT_MS + 1_500);
          }
        }
      })();

      const jobs: JobSpec[] = [];
      for (let n = 0; n < JOBS; n++) jobs.push(job(accounts[n % ACCOUNTS]!, n));
      for (let from = 0; from < jobs.length; from += RATE / 4) {
        const batch = jobs.slice(from, from + RATE / 4);
        await Promise.all(
          batch.map((spec) =>
            client.append(TOPICS.billing, [
              makeEvent(
                'billing.reservation-requested',
                spec.accountId!,
                { job: spec },
                { correlationId: spec.jobId },
              ),
            ]),
          ),
        );
        await sleep(250);
      }
      sending = false;
      await storm;

      // Calm again: every slot runs, nobody frozen, and the backlog drains.
      for (const [slot, replica] of slots.entries()) {
        if (replica?.paused) {
          replica.child.kill('SIGCONT');
          replica.paused = false;
        }
        if (!replica) launch(slot);
      }
      const stormed = Date.now();
      process.stderr.write(
        `[storm] ${JSON.stringify(counts)} in ${seconds(began, stormed)} s, load ${load()}\n`,
      );
      const jobIds = new Set(jobs.map((j) => j.jobId));
      let reported = 0;
      for (const deadline = Date.now() + DRAIN_MS; ;) {
        const facts = [...admittedFacts(seen)].filter(isBillingFact);
        const decided = new Set<string>();
        const unreleased = new Set<string>();
        for (const fact of facts) {
          const { jobId } = fact.payload as { jobId?: string };
          if (!jobId) continue;
          if (fact.type === 'billing.credits-reserved') {
            decided.add(jobId);
            if (outcome(fact)) unreleased.add(jobId);
          }
          if (fact.type === 'billing.credits-rejected') decided.add(jobId);
          if (fact.type === 'billing.credits-released') unreleased.delete(jobId);
        }
        if ([...jobIds].every((id) => decided.has(id)) && unreleased.size === 0) break;
        // The drain's pace, for the figures in docs/cluster.md: decisions so far, twice a minute.
        if (Date.now() - reported >= 30_000) {
          reported = Date.now();
          process.stderr.write(
            `[storm] ${decided.size} decided ${seconds(stormed, reported)} s after the storm, load ${load()}\n`,
          );
        }
        if (Date.now() > deadline) {
          for (const [slot, replica] of slots.entries()) {
            process.stderr.write(`--- billing slot ${slot}\n${replica?.output.join('\n') ?? '(none)'}\n`);
          }
          const undecided = [...jobIds].filter((id) => !decided.has(id)).length;
          const deadLetters = (await readAll(client, TOPICS.deadLetter).catch(() => [])).map((e) =>
            JSON.stringify(e.payload),
          );
          throw new Error(
            `undecided: ${undecided}, unreleased ${unreleased.size} (${[...unreleased].join(', ')}); ` +
              `dead letters: ${deadLetters.length ? deadLetters.join('\n') : 'none'}`,
          );
        }
        await sleep(1_000);
      }
      process.stderr.write(
        `[storm] all decided ${seconds(stormed, Date.now())} s after the storm, load ${load()}\n`,
      );
      await renderer.close();
      await observer.close();
      const billing = await readAll(client, TOPICS.billing);
      const facts = [...admittedFacts(billing)].filter(isBillingFact);
      const drained = Date.now();

      // 1. No account's used + reserved ever exceeds its allowance, fact by fact.
      const replay = emptyBillingReplay();
      let worst = 0;
      for (const fact of facts) {
        foldBillingEvent(replay, fact);
        const ledger = replay.ledgers.get((fact.payload as { accountId: string }).accountId);
        if (ledger) worst = Math.max(worst, ledger.used + ledger.reserved - ledger.allowance);
      }
      expect(worst).toBeLessThanOrEqual(0);

      // 2. Every reservation decided exactly once: one admitted decision per job, none twice.
      const decisions = new Map<string, number>();
      for (const fact of facts) {
        if (fact.type !== 'billing.credits-reserved' && fact.type !== 'billing.credits-rejected') continue;
        const { jobId } = fact.payload as { jobId: string };
        decisions.set(jobId, (decisions.get(jobId) ?? 0) + 1);
      }
      expect(decisions.size).toBe(JOBS);
      expect([...decisions.values()].filter((n) => n !== 1)).toEqual([]);
      const reserved = facts.filter((f) => f.type === 'billing.credits-reserved').length;
      // The first 75 of each account always fit, and released credits were used again; far from all fit.
      const allowanceJobs = ACCOUNTS * Math.min(75, Math.ceil(JOBS / ACCOUNTS));
      expect(reserved).toBeGreaterThanOrEqual(allowanceJobs);
      if (JOBS > allowanceJobs) expect(reserved).toBeLessThan(JOBS);

      // 3. The ledger rebuilt from Kafka equals billing's read model, account by account.
      const rebuilt = foldLedger(admittedFacts(billing));
      const live: Record<string, AccountLedger> = {};
      for (const accountId of accounts) {
        const doc = await billingStore
          .collection<AccountLedger & FoldedDocument>('billing_accounts')
          .get(accountId);
        const { id: _id, ...ledger } = unfolded(doc!) as AccountLedger & { id: string };
        live[accountId] = ledger;
      }
      expect(rebuilt).toEqual(live);

      // 4. The gateway's ledgers and job views rebuilt from Kafka equal its live read model.
      const report = await new RebuildUseCase(client, readModel).execute();
      expect(report.accounts).toMatchObject({ count: ACCOUNTS, equal: true });
      expect(report.jobs).toMatchObject({ equal: true });
      expect(report.jobs.count).toBeGreaterThanOrEqual(reserved);

      const markers = billing.filter(isOwnerFenced).length;
      const fencedOut = billing.filter(
        (e) => isBillingFact(e) && !facts.includes(e) && e.fence !== undefined,
      ).length;
      process.stderr.write(
        `[storm] ${JOBS} reservations, ${reserved} reserved, ${markers} owner markers, ${fencedOut} facts fenced out; checks ${seconds(drained, Date.now())} s, load ${load()}\n`,
      );
      // The storm really moved the partitions: more owners fenced them than the first three.
      expect(markers).toBeGreaterThan(PARTITIONS);
    },
    30 * 60_000,
  );
});
