import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { EventEnvelope } from '@thumbforge/contracts';
import {
  BILLING_FACT_TYPES,
  emptyBillingReplay,
  foldBillingEvent,
  isBillingFact,
  LEDGER_UNREAD_FIELDS,
  type AccountLedger,
} from '@thumbforge/domain';
import { readBatches, type EventLog } from '@thumbforge/event-log';
import type { Progress, ProgressBar } from './progress.js';

export type ReplayLog = 'file' | 'kafka';

let gc: (() => void) | undefined;

/** A full collection on demand: the bench's process is started without `--expose-gc`. */
function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

export interface ReplayOptions {
  /**
   * The history, one append call per chunk, made before timing starts. Handed over: emptied once
   * appended, so that the replays' collections do not walk a million events the bench has done with.
   */
  chunks: EventEnvelope[][];
  /** `ledgerDigest` of the ledgers the history leaves. */
  expectedDigest: string;
  /** Append calls in flight at once (the adapters merge queued calls into one write or request). */
  appendsInFlight?: number;
  /** Replays of the topic (default 1); the replay figures are the medians. */
  rounds?: number;
  /**
   * Runs after each replay with the topic's event count: a baseline measured between the rounds
   * meets the same machine.
   */
  afterRound?: (events: number) => Promise<void>;
  progress: Progress;
}

export interface ReplayMeasurement {
  log: ReplayLog;
  /** Events on the topic, which a replay goes through: the rates are of these. */
  events: number;
  /** The billing facts among them, which the fold takes; the rest (commands) are skipped undecoded. */
  facts: number;
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
  /**
   * Kafka only: a bare kafkajs consumer reading the same topic, the baseline of the replay; the median
   * of one read after each replay round.
   */
  rawConsumeMs?: number;
  /** Each of those reads, in order: one that was disturbed stands out here. */
  rawConsumeRunsMs?: number[];
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
  // One pass: the events, the facts among them, and the offset after the last fact (a history that
  // ends in commands is read up to there).
  let events = 0;
  let facts = 0;
  let factsEnd = 0;
  for (const chunk of options.chunks) {
    for (const event of chunk) {
      events++;
      if (isBillingFact(event)) {
        facts++;
        factsEnd = events;
      }
    }
  }
  const name = kind === 'file' ? 'file log' : 'kafka';
  const appending = options.progress.start(`append to ${name}`, events);
  let appended = 0;
  const appendStart = performance.now();
  await appendAll(log, topic, options.chunks, options.appendsInFlight ?? 8, (n) =>
    appending.update((appended += n)),
  );
  const appendMs = performance.now() - appendStart;
  appending.stop();
  // Held through the replays, the history was most of the heap (1,000,000 events), and V8's helper
  // threads spent 3-5 s marking it again during a replay whenever one started a collection.
  options.chunks.length = 0;

  const rounds = options.rounds ?? 1;
  const replays: Awaited<ReturnType<typeof replayOnce>>[] = [];
  for (let round = 1; round <= rounds; round++) {
    const of = rounds > 1 ? ` (${round} of ${rounds})` : '';
    // From a collected heap, as a process that starts up or rebuilds replays: not while collecting
    // what the bench made before.
    collectGarbage();
    replays.push(
      await replayOnce(
        log,
        topic,
        { events, facts, factsEnd },
        options.progress.start(`replay from ${name}${of}`, events),
      ),
    );
    // The baseline too: the round's garbage is not its to collect.
    collectGarbage();
    await options.afterRound?.(events);
  }
  // The median round's read and fold, so that the two add up to its replay.
  const median = [...replays].sort((a, b) => a.replayMs - b.replayMs)[Math.floor(replays.length / 2)]!;

  return {
    log: kind,
    events,
    facts,
    accounts: median.accounts,
    appendMs,
    rounds,
    replayMs: median.replayMs,
    foldMs: median.foldMs,
    replayCpuMs: median.cpuMs,
    ledgersMatch: replays.every((r) => r.digest === options.expectedDigest),
  };
}

/**
 * Reads the whole topic in batches (`readBatches`: the log's own, or its events grouped), asking for
 * the ledger's facts only, and folds them with billing's fold; the fold is timed per batch, so timing
 * costs nothing per event.
 */
async function replayOnce(
  log: EventLog,
  topic: string,
  expected: { events: number; facts: number; factsEnd: number },
  bar: ProgressBar,
) {
  const billing = emptyBillingReplay();
  let read = 0;
  let reached = 0;
  let foldMs = 0;
  const cpuStart = process.cpuUsage();
  const replayStart = performance.now();
  // The ledger's facts only, and only what it folds: the log skips the commands without decoding them,
  // and may leave the jobs out of the reservations.
  const wanted = { types: BILLING_FACT_TYPES, unread: LEDGER_UNREAD_FIELDS };
  for await (const batch of readBatches(log, topic, wanted)) {
    const foldStart = performance.now();
    for (const event of batch) foldBillingEvent(billing, event);
    foldMs += performance.now() - foldStart;
    read += batch.length;
    reached = batch.at(-1)!.offset + 1;
    bar.update(reached);
  }
  const replayMs = performance.now() - replayStart;
  const cpu = process.cpuUsage(cpuStart);
  bar.stop();
  if (read !== expected.facts || reached !== expected.factsEnd) {
    throw new Error(
      `${topic}: read ${read} facts up to ${reached} of ${expected.facts} facts in ${expected.events}`,
    );
  }
  // Only the fingerprint is kept: a round's ledgers left alive would be heap the next round's GC walks.
  return {
    replayMs,
    foldMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    accounts: billing.ledgers.size,
    digest: ledgerDigest(billing.ledgers),
  };
}
