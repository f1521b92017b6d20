import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { EventEnvelope } from '@thumbforge/contracts';
import { emptyBillingReplay, foldBillingEvent, type AccountLedger } from '@thumbforge/domain';
import { readBatches, type EventLog } from '@thumbforge/event-log';
import type { Progress, ProgressBar } from './progress.js';

export type ReplayLog = 'file' | 'kafka';

export interface ReplayOptions {
  /** The history, one append call per chunk, made before timing starts. */
  chunks: readonly EventEnvelope[][];
  /** `ledgerDigest` of the ledgers the history leaves. */
  expectedDigest: string;
  /** Append calls in flight at once (the adapters merge queued calls into one write or request). */
  appendsInFlight?: number;
  /** Replays of the topic (default 1); the replay figures are the medians. */
  rounds?: number;
  progress: Progress;
}

export interface ReplayMeasurement {
  log: ReplayLog;
  events: number;
  accounts: number;
  appendMs: number;
  /** Replays measured: the replay figures are medians over them. */
  rounds: number;
  /** Reading the topic from the start and folding every event, as a rebuild does. */
  replayMs: number;
  /** The part of `replayMs` spent in the fold; the rest is the log's read. */
  foldMs: number;
  /** CPU time of the process during the replay: beside `replayMs`, what a loaded machine took away. */
  replayCpuMs?: number;
  /** Whether the replayed ledgers equal those billing held while the events were written. */
  ledgersMatch: boolean;
  /** Kafka only: a bare kafkajs consumer reading the same topic, the baseline of the replay. */
  rawConsumeMs?: number;
}

/** A fingerprint of ledgers, to compare a replay with the state the history was made from. */
export function ledgerDigest(ledgers: ReadonlyMap<string, AccountLedger>): string {
  const hash = createHash('sha256');
  for (const id of [...ledgers.keys()].sort()) hash.update(JSON.stringify(ledgers.get(id)));
  return hash.digest('hex');
}

async function appendAll(
  log: EventLog,
  topic: string,
  chunks: Iterable<EventEnvelope[]>,
  inFlight: number,
  onAppended: (events: number) => void,
): Promise<void> {
  const pending = new Set<Promise<void>>();
  let failure: unknown;
  for (const chunk of chunks) {
    // The adapters keep the order of calls on a topic, so concurrent appends still write the history in order.
    const append: Promise<void> = log.append(topic, chunk).then(
      () => {
        pending.delete(append);
        onAppended(chunk.length);
      },
      (error: unknown) => {
        pending.delete(append);
        failure ??= error;
      },
    );
    pending.add(append);
    if (pending.size >= inFlight) await Promise.race(pending);
    if (failure) throw failure;
  }
  await Promise.all(pending);
  if (failure) throw failure;
}

/**
 * Appends a billing history to a fresh topic of `log`, then replays it: reads the whole topic through
 * `log.read` and folds every event into per-account ledgers with billing's own fold, checking the
 * result against the ledgers the history was made with.
 */
export async function measureReplay(
  log: EventLog,
  kind: ReplayLog,
  topic: string,
  options: ReplayOptions,
): Promise<ReplayMeasurement> {
  const events = options.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const name = kind === 'file' ? 'file log' : 'kafka';
  const appending = options.progress.start(`append to ${name}`, events);
  let appended = 0;
  const appendStart = performance.now();
  await appendAll(log, topic, options.chunks, options.appendsInFlight ?? 8, (n) =>
    appending.update((appended += n)),
  );
  const appendMs = performance.now() - appendStart;
  appending.stop();

  const rounds = options.rounds ?? 1;
  const replays: Awaited<ReturnType<typeof replayOnce>>[] = [];
  for (let round = 1; round <= rounds; round++) {
    const of = rounds > 1 ? ` (${round} of ${rounds})` : '';
    replays.push(
      await replayOnce(log, topic, events, options.progress.start(`replay from ${name}${of}`, events)),
    );
  }
  // The median round's read and fold, so that the two add up to its replay.
  const median = [...replays].sort((a, b) => a.replayMs - b.replayMs)[Math.floor(replays.length / 2)]!;

  return {
    log: kind,
    events,
    accounts: median.billing.ledgers.size,
    appendMs,
    rounds,
    replayMs: median.replayMs,
    foldMs: median.foldMs,
    replayCpuMs: median.cpuMs,
    ledgersMatch: replays.every((r) => ledgerDigest(r.billing.ledgers) === options.expectedDigest),
  };
}

/**
 * Reads the whole topic in batches (`readBatches`: the log's own, or its events grouped) and folds
 * every event with billing's fold; the fold is timed per batch, so timing costs nothing per event.
 */
async function replayOnce(log: EventLog, topic: string, events: number, bar: ProgressBar) {
  const billing = emptyBillingReplay();
  let read = 0;
  let foldMs = 0;
  const cpuStart = process.cpuUsage();
  const replayStart = performance.now();
  for await (const batch of readBatches(log, topic)) {
    const foldStart = performance.now();
    for (const event of batch) foldBillingEvent(billing, event);
    foldMs += performance.now() - foldStart;
    read += batch.length;
    bar.update(read);
  }
  const replayMs = performance.now() - replayStart;
  const cpu = process.cpuUsage(cpuStart);
  bar.stop();
  if (read !== events) throw new Error(`${topic}: read ${read} events of ${events} appended`);
  return { replayMs, foldMs, cpuMs: (cpu.user + cpu.system) / 1000, billing };
}
