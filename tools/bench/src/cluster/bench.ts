import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventEnvelope } from '@thumbforge/contracts';
import { FileEventLog, type EventLog } from '@thumbforge/event-log';
import { KafkaEventLog } from '@thumbforge/event-log/kafka';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';
import { billingHistory } from './billing-history.js';
import { cpuPerRequest, idleCpu, type CpuPerRequest, type IdleCpu } from './cpu.js';
import { hopSteps, readClusterEvents, type HopStep } from './hops.js';
import { measureFenceCost, type FenceMeasurement } from './fence.js';
import {
  asyncEndToEnd,
  KeyRing,
  sequentialSync,
  syncUnderLoad,
  warmUpUnderLoad,
  type AnsweredRequest,
  type LoadResult,
} from './latency.js';
import type { Progress } from './progress.js';
import { rawConsumeMs } from './raw-consume.js';
import { measureStartup, type StartupMeasurement } from '../startup/startup.js';
import { ledgerDigest, measureReplay, type ReplayLog, type ReplayMeasurement } from './replay.js';
import { summarize, type LatencySummary } from './stats.js';
import {
  accountsCovering,
  createAccounts,
  residentMiB,
  startCluster,
  startEmbedded,
  type Mode,
  type Target,
} from './targets.js';

export interface ClusterBenchOptions {
  /** Which modes to start and measure (both for the comparison). */
  modes: readonly Mode[];
  /** Untimed sync and async requests per mode, one at a time, before measuring. */
  warmup: number;
  /**
   * Untimed sync requests per mode over several connections before measuring (`warmUpUnderLoad`).
   */
  warmupLoad: number;
  /** Sync requests one after another per mode, for the latency percentiles. */
  sequential: number;
  /**
   * Wall time per mode with no requests, after the warm-up, over which each process's CPU is read: what
   * the mode costs standing still (0: not measured).
   */
  idleMs: number;
  /** A load run per count of concurrent connections, each of `loadRequests` requests, per mode. */
  connections: readonly number[];
  loadRequests: number;
  /** Async requests per mode, one at a time, timed until their webhook arrives. */
  asyncJobs: number;
  /** Which logs to append the billing history to and replay it from. */
  replayLogs: readonly ReplayLog[];
  events: number;
  accounts: number;
  /** Events of the start-up rows (embedded, with and without a snapshot); 0 leaves them out. */
  startupEvents: number;
  /** Reservations per variant for the owner fence's cost (0: not measured). */
  fenceReservations: number;
  progress: Progress;
}

export interface ModeReport {
  mode: Mode;
  sync: LatencySummary;
  /** Cluster: the median of each step of the one-at-a-time sync requests, from Kafka record times. */
  hops?: HopStep[];
  /** One per entry of `connections`, in that order. */
  load: LoadResult[];
  /** The CPU each process took per request in the first load run (`connections[0]`). */
  cpu?: CpuPerRequest;
  /** The same over the sync requests one at a time (`sync`). */
  cpuOneAtATime?: CpuPerRequest;
  /** Each process's CPU per second with no requests, after the warm-up (`idleMs`). */
  idle?: IdleCpu;
  async: LatencySummary;
  /** Resident memory of each service process after every request of the mode (MiB). */
  rssMiB: Record<string, number>;
}

export interface ClusterBenchReport {
  options: Omit<ClusterBenchOptions, 'progress'>;
  modes: ModeReport[];
  replay: ReplayMeasurement[];
  startup?: StartupMeasurement[];
  fence?: FenceMeasurement;
}

/** Events per append call: about 300 KB, under Kafka's 1 MB record batch limit. */
const APPEND_CHUNK = 500;
/** The pause between the warm-up and the reading of the processes' standing CPU. */
const IDLE_SETTLE_MS = 1_000;
/** Replays per log; the figures are medians (on Kafka, each round followed by its baseline). */
const REPLAY_ROUNDS = 3;

/** Accounts for every request of a mode (`accountsCovering`). */
function accountsFor(options: ClusterBenchOptions): number {
  const requests =
    options.warmupLoad +
    2 * options.warmup +
    options.sequential +
    options.loadRequests * options.connections.length +
    options.asyncJobs;
  return accountsCovering(requests, Math.max(...options.connections));
}

async function measureMode(target: Target, options: ClusterBenchOptions): Promise<ModeReport> {
  const { progress } = options;
  const keys = new KeyRing(await createAccounts(target, accountsFor(options)));
  await warmUpUnderLoad(target.url, keys, options.warmupLoad, progress, target.mode);
  if (options.warmup > 0) {
    await sequentialSync(target.url, keys, options.warmup, progress, `${target.mode} warm-up sync`);
    await asyncEndToEnd(target.url, keys, options.warmup, progress, `${target.mode} warm-up async`);
  }
  const answered: AnsweredRequest[] = [];
  const cpuProcesses = await target.cpuProcesses();
  let idle: IdleCpu | undefined;
  if (options.idleMs > 0) {
    // What trails the warm-up (projections, captures, position saves) settles first.
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    idle = await idleCpu(cpuProcesses, options.idleMs);
  }
  // The CPU of requests one at a time: how much of the machine a single request keeps busy.
  const { cpu: cpuOneAtATime, result: sync } = await cpuPerRequest(
    cpuProcesses,
    1,
    () => sequentialSync(target.url, keys, options.sequential, progress, `${target.mode} sync`, answered),
    (summary) => summary.samples,
  );
  // Read now, before the load runs add their events: the profile is of requests one at a time.
  const hops = target.kafkaBrokers
    ? hopSteps(answered, await readClusterEvents(target.kafkaBrokers))
    : undefined;
  const load: LoadResult[] = [];
  let cpu: CpuPerRequest | undefined;
  for (const [i, connections] of options.connections.entries()) {
    progress.note(`${target.mode}: ${options.loadRequests} sync requests over ${connections} connections`);
    const run = () => syncUnderLoad(target.url, keys, connections, options.loadRequests);
    if (i > 0) {
      load.push(await run());
      continue;
    }
    // The first load run's CPU, process by process: what bounds the mode's throughput on this machine.
    const measured = await cpuPerRequest(cpuProcesses, connections, run, (r) => r.requests - r.failures);
    cpu = measured.cpu;
    load.push(measured.result);
  }
  const async = await asyncEndToEnd(target.url, keys, options.asyncJobs, progress, `${target.mode} async`);
  const rssMiB: Record<string, number> = {};
  for (const [name, pid] of Object.entries(target.processes())) rssMiB[name] = await residentMiB(pid);
  return { mode: target.mode, sync, hops, load, cpu, cpuOneAtATime, idle, async, rssMiB };
}

export interface OpenLog {
  log: EventLog;
  /** Set for Kafka: where the bare kafkajs consumer reads the same topic. */
  brokers?: string[];
  close(): Promise<void>;
}

/** Embedded mode's log with its default: every acknowledged append is fsynced. */
export async function openFileLog(): Promise<OpenLog> {
  const dir = await mkdtemp(join(tmpdir(), 'thumbforge-bench-log-'));
  const log = new FileEventLog({ dir, fsync: 'always' });
  await log.open();
  return {
    log,
    close: async () => {
      await log.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function openKafkaLog(brokers: string[]): Promise<OpenLog> {
  const log = new KafkaEventLog({ brokers, clientId: 'thumbforge-bench' });
  await log.open();
  return { log, brokers, close: () => log.close() };
}

/** The history in memory before any timing, so the append figures are the logs' alone. */
export function generateHistory(options: { events: number; accounts: number; progress: Progress }): {
  chunks: EventEnvelope[][];
  digest: string;
} {
  const history = billingHistory({ events: options.events, accounts: options.accounts, chunk: APPEND_CHUNK });
  const bar = options.progress.start('generate history', options.events);
  const chunks: EventEnvelope[][] = [];
  let made = 0;
  for (const chunk of history.chunks) {
    chunks.push(chunk);
    bar.update((made += chunk.length));
  }
  bar.stop();
  return { chunks, digest: ledgerDigest(history.ledgers) };
}

/**
 * Appends the history to a fresh topic (emptying its chunks, see `ReplayOptions.chunks`) and replays
 * it `rounds` times. On Kafka a bare kafkajs consumer reads the same topic after each replay, so the
 * replay and its baseline alternate and a machine that slows down between them moves both.
 */
export async function replayInto(
  kind: ReplayLog,
  opened: OpenLog,
  history: { chunks: EventEnvelope[][]; digest: string },
  progress: Progress,
  rounds = 1,
): Promise<ReplayMeasurement> {
  // A fresh topic per run: the figures are for exactly this history.
  const topic = `bench.billing.${randomUUID()}`;
  const { brokers } = opened;
  const raw: number[] = [];
  let measured: ReplayMeasurement;
  try {
    measured = await measureReplay(opened.log, kind, topic, {
      chunks: history.chunks,
      expectedDigest: history.digest,
      rounds,
      progress,
      afterRound: brokers
        ? async (events) => {
            progress.note('kafka: the same topic through a bare kafkajs consumer');
            raw.push(await rawConsumeMs(brokers, topic, events));
          }
        : undefined,
    });
  } finally {
    await opened.close();
  }
  if (raw.length > 0) {
    measured.rawConsumeMs = summarize(raw).p50;
    measured.rawConsumeRunsMs = raw;
  }
  return measured;
}

/**
 * Starts the requested modes side by side, measures each in turn (sync latency one request at a time
 * and under load, async end-to-end latency to a webhook), stops them, then appends a billing history
 * to each requested log and replays it. Kafka is the cluster's own broker, or one started for the
 * replay when the cluster is not measured.
 */
export async function runClusterBench(options: ClusterBenchOptions): Promise<ClusterBenchReport> {
  const { progress } = options;
  const targets: Target[] = [];
  let ownKafka: RunningInfrastructure<'kafka'> | undefined;
  const stopAll = async () => {
    await Promise.allSettled(targets.map((t) => t.stop()));
    await ownKafka?.stop();
  };
  try {
    if (options.modes.includes('embedded')) {
      progress.note('starting embedded mode (services/embedded/dist/main.js)');
      targets.push(await startEmbedded());
    }
    if (options.modes.includes('cluster')) {
      progress.note('starting a local cluster (Kafka, FerretDB, MinIO and five service processes)');
      targets.push(await startCluster());
    }
    const modes: ModeReport[] = [];
    for (const target of targets) modes.push(await measureMode(target, options));

    // The services, FerretDB and MinIO stop before the replay, so it has the machine to itself; Kafka
    // stays up for it.
    for (const target of targets) await target.stopServices();

    const startup: StartupMeasurement[] = [];
    if (options.startupEvents > 0) {
      startup.push(
        await measureStartup({ events: options.startupEvents, accounts: options.accounts, progress }),
      );
    }

    const replay: ReplayMeasurement[] = [];
    if (options.replayLogs.length > 0) {
      // One history per log (the same: it is seeded), as a replay hands its history over.
      if (options.replayLogs.includes('file')) {
        const history = generateHistory(options);
        replay.push(await replayInto('file', await openFileLog(), history, progress, REPLAY_ROUNDS));
      }
      if (options.replayLogs.includes('kafka')) {
        let brokers = targets.find((t) => t.kafkaBrokers)?.kafkaBrokers;
        if (!brokers) {
          progress.note('starting Kafka for the replay');
          ownKafka = await startInfrastructure({ services: ['kafka'], onProgress: () => undefined });
          brokers = ownKafka.kafka.brokers;
        }
        const history = generateHistory(options);
        replay.push(await replayInto('kafka', await openKafkaLog(brokers), history, progress, REPLAY_ROUNDS));
      }
    }
    await stopAll();
    const fence =
      options.fenceReservations > 0 ? await measureFenceCost(options.fenceReservations, progress) : undefined;
    const { progress: _progress, ...settings } = options;
    return { options: settings, modes, replay, startup, ...(fence ? { fence } : {}) };
  } finally {
    await stopAll();
  }
}
