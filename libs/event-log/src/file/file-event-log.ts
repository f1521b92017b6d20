import { constants } from 'node:fs';
import { access, mkdir, open, readdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventEnvelope, StoredEvent } from '@thumbforge/contracts';
import { DEAD_LETTER_TOPIC } from '../dead-letter.js';
import {
  assertSinglePartition,
  assertSubscriptionCounts,
  positionKey,
  typeFilter,
  unreadFilter,
  type AppendOptions,
  type EventLog,
  type ReadOptions,
  type Subscription,
  type SubscriptionOptions,
} from '../port.js';
import { FileSubscription, type SubscriptionHost } from './file-subscription.js';
import { cleanEnvelope, encodeRecord, parseRecord, toStoredEvent } from './frame.js';
import { RangeScanner, scanRange, type RangeRequest, type ScannedRange } from './frame-scan.js';
import { acquireLock, syncDir } from './fs-util.js';
import {
  DEFAULT_COMMIT_INTERVAL_MS,
  groupFile,
  GroupCommitter,
  readGroupPositions,
} from './group-positions.js';
import {
  dropSegmentIndex,
  incompleteTail,
  loadSegmentIndex,
  newSegment,
  scanSegment,
  segmentBase,
  writeSegmentIndex,
  type Segment,
} from './segment.js';

export interface FileEventLogOptions {
  dir: string;
  /** `always`: an append resolves after fdatasync (group-committed); `never`: after the write only. */
  fsync: 'always' | 'never';
  /** A topic rolls to a new segment file once its current one reaches this size (default 64 MiB). */
  segmentBytes?: number;
  /** Pause before retry `attempt` (1-based) of a failing handler; default 100 ms doubling up to 2 s. */
  retryDelayMs?: (attempt: number) => number;
  /** Failures no caller can see (a handler given up on, a read error a consumer retries). */
  onError?: (error: unknown, context: string) => void;
  /**
   * How long a consumer group's advanced positions gather before one write commits them (default
   * 1 s; 0 writes each at once). Delivery is at-least-once either way: a crash redelivers at most
   * what this interval handled.
   */
  commitIntervalMs?: number;
  /**
   * `readBatches` over at least this many records reads and checks them in a worker thread while
   * the caller parses and folds (default 50,000; a shorter read is not worth starting a thread).
   */
  scanInWorkerFrom?: number;
}

export interface FileEventLogStats {
  /** Append calls accepted. */
  appends: number;
  /** Write system calls batches went out in: fewer than appends under concurrency (group commit). */
  writes: number;
  syncs: number;
}

/** What `open()` cut off a topic: a torn write or an append that was only partly written. */
export interface RecoveryNote {
  topic: string;
  segment: string;
  droppedBytes: number;
  reason: string;
}

export class CorruptLogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorruptLogError';
  }
}

interface PendingAppend {
  events: EventEnvelope[];
  frames: Buffer[];
  bytes: number;
  resolve(events: StoredEvent[]): void;
  reject(error: unknown): void;
}

interface TopicState {
  name: string;
  dir: string;
  segments: Segment[];
  /** Next offset; every record before it is written (and synced under `always`) and indexed. */
  next: number;
  queue: PendingAppend[];
  draining: boolean;
  drained: Promise<void>;
  /** Set when a failed write could not be rolled back: the topic refuses writes until reopened. */
  failed?: Error;
  tail: RecentBytes;
}

/**
 * The newest bytes written to a topic's last segment, kept so that consumers that keep up (all of
 * them, in a service that is not replaying) read what was just appended from memory, without a
 * disk read and a thread-pool round trip per batch.
 */
interface RecentBytes {
  segment?: Segment;
  /** Segment position of `buf[0]`. */
  start: number;
  length: number;
  buf?: Buffer;
}

type Phase = 'new' | 'opening' | 'open' | 'closing-subscriptions' | 'closing' | 'closed';

const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
/** Record positions are kept as u32. */
const MAX_SEGMENT_BYTES = 0xffffffff;
const MAX_WRITE_BYTES = 8 * 1024 * 1024;
const READ_BATCH_RECORDS = 2048;
const READ_BATCH_BYTES = 1024 * 1024;
/** Reads at least this long read and check their records in a worker thread (`RangeScanner`). */
const DEFAULT_SCAN_IN_WORKER_FROM = 50_000;
/** With the worker: one batch being decoded, one being read and checked, one waiting. */
const SCANNED_BATCHES_AHEAD = 3;

/** A batch `readBatch` reads: records `[first, last)` of `segment`, bytes `[start, stop)` of its file. */
interface BatchPlan {
  segment: Segment;
  first: number;
  last: number;
  start: number;
  stop: number;
}

/**
 * At least this much of a topic's newest bytes stays readable from memory (twice it is allocated):
 * a few hundred events, more than a live subscriber lags; one further behind reads from disk.
 */
const RECENT_BYTES = 256 * 1024;

function remember(tail: RecentBytes, segment: Segment, start: number, frames: Buffer[], bytes: number): void {
  if (bytes > RECENT_BYTES) {
    tail.segment = undefined;
    return;
  }
  if (tail.segment !== segment || tail.start + tail.length !== start) {
    tail.segment = segment;
    tail.start = start;
    tail.length = 0;
  }
  const buf = (tail.buf ??= Buffer.allocUnsafeSlow(2 * RECENT_BYTES));
  if (tail.length + bytes > buf.length) {
    // Drop the oldest bytes, keeping RECENT_BYTES minus what comes: a copy per RECENT_BYTES written.
    const keep = RECENT_BYTES - bytes;
    buf.copyWithin(0, tail.length - keep, tail.length);
    tail.start += tail.length - keep;
    tail.length = keep;
  }
  for (const frame of frames) {
    frame.copy(buf, tail.length);
    tail.length += frame.length;
  }
}

/** `[start, stop)` of `segment` from memory, when all of it is among the recent bytes. */
function recall(tail: RecentBytes, segment: Segment, start: number, stop: number): Buffer | undefined {
  if (tail.segment !== segment || start < tail.start || stop > tail.start + tail.length) return undefined;
  return tail.buf!.subarray(start - tail.start, stop - tail.start);
}
const TOPIC_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

function assertTopic(topic: string): void {
  if (typeof topic !== 'string' || !TOPIC_NAME.test(topic)) {
    throw new TypeError(`invalid topic name ${JSON.stringify(topic)}`);
  }
}

function isOffset(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

async function writeFully(handle: FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await handle.write(buf, done, buf.length - done, position + done);
    done += bytesWritten;
  }
}

async function readFully(handle: FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await handle.read(buf, done, buf.length - done, position + done);
    if (bytesRead === 0) throw new CorruptLogError(`segment ended ${buf.length - done} bytes early`);
    done += bytesRead;
  }
}

async function truncateFile(path: string, length: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(length);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

function defaultRetryDelayMs(attempt: number): number {
  return Math.min(100 * 2 ** (attempt - 1), 2_000);
}

function defaultOnError(error: unknown, context: string): void {
  const message = error instanceof Error ? error.message : String(error);
  process.emitWarning(`${context}: ${message}`, { code: 'THUMBFORGE_EVENT_LOG' });
}

/**
 * The embedded durable log: per topic a directory of append-only segment files, one partition (0),
 * offsets from 0. Only record positions are held in memory; events are read back from disk. With one
 * partition every key stays in order, so `AppendOptions.key` needs no handling here.
 *
 * Layout under `dir`: `topics/<topic>/<base offset, 20 digits>.seg`, `groups/<group>.json` (committed
 * positions) and a `LOCK` file naming the owning process.
 */
export class FileEventLog implements EventLog {
  private readonly dir: string;
  private readonly topicsDir: string;
  private readonly groupsDir: string;
  private readonly durable: boolean;
  private readonly segmentBytes: number;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly commitIntervalMs: number;
  private readonly scanInWorkerFrom: number;
  private readonly onError: (error: unknown, context: string) => void;
  private readonly topics = new Map<string, TopicState>();
  private readonly subscriptions = new Set<FileSubscription>();
  private readonly committers = new Map<string, Promise<GroupCommitter>>();
  private readonly indexWrites = new Set<Promise<void>>();
  private readonly counters: FileEventLogStats = { appends: 0, writes: 0, syncs: 0 };
  private readonly recoveries: RecoveryNote[] = [];
  private phase: Phase = 'new';
  private opening: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private releaseLock: (() => Promise<void>) | undefined;
  private readonly host: SubscriptionHost;

  constructor(options: FileEventLogOptions) {
    if (typeof options.dir !== 'string' || options.dir === '') throw new TypeError('dir is required');
    if (options.fsync !== 'always' && options.fsync !== 'never') {
      throw new TypeError(`fsync must be 'always' or 'never', not ${JSON.stringify(options.fsync)}`);
    }
    const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    if (!Number.isSafeInteger(segmentBytes) || segmentBytes < 1 || segmentBytes > 1024 ** 3) {
      throw new RangeError('segmentBytes must be an integer from 1 to 1 GiB');
    }
    this.dir = options.dir;
    this.topicsDir = join(options.dir, 'topics');
    this.groupsDir = join(options.dir, 'groups');
    this.durable = options.fsync === 'always';
    this.segmentBytes = segmentBytes;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelayMs;
    this.commitIntervalMs = options.commitIntervalMs ?? DEFAULT_COMMIT_INTERVAL_MS;
    if (!Number.isFinite(this.commitIntervalMs) || this.commitIntervalMs < 0) {
      throw new RangeError('commitIntervalMs must be a non-negative number');
    }
    this.scanInWorkerFrom = options.scanInWorkerFrom ?? DEFAULT_SCAN_IN_WORKER_FROM;
    if (!isOffset(this.scanInWorkerFrom)) {
      throw new RangeError('scanInWorkerFrom must be a non-negative integer');
    }
    this.onError = options.onError ?? defaultOnError;
    this.host = {
      end: (topic) => this.topics.get(topic)?.next ?? 0,
      readBatch: async (topic, from, end) => {
        const plan = this.planBatch(topic, from, end);
        return plan ? this.readBatch(topic, plan, undefined) : [];
      },
      deadLetter: async (event) => {
        await this.append(DEAD_LETTER_TOPIC, [event]);
      },
      retryDelayMs: (attempt) => this.retryDelayMs(attempt),
      onError: (error, context) => this.onError(error, context),
      release: (subscription) => this.subscriptions.delete(subscription),
    };
  }

  get stats(): FileEventLogStats {
    return { ...this.counters };
  }

  /** What the last `open()` cut off torn tails. */
  get recovered(): readonly RecoveryNote[] {
    return [...this.recoveries];
  }

  /** Recovers every topic (truncating torn tails) and takes the directory's lock. */
  open(): Promise<void> {
    if (this.phase === 'opening' || this.phase === 'open') return this.opening!;
    if (this.phase !== 'new') return Promise.reject(new Error('a closed event log cannot be reopened'));
    this.phase = 'opening';
    this.opening = this.recover().catch((error: unknown) => {
      this.phase = 'closed';
      throw error;
    });
    return this.opening;
  }

  private async recover(): Promise<void> {
    await mkdir(this.topicsDir, { recursive: true });
    await mkdir(this.groupsDir, { recursive: true });
    this.releaseLock = await acquireLock(join(this.dir, 'LOCK'));
    try {
      for (const entry of await readdir(this.groupsDir)) {
        if (entry.endsWith('.tmp')) await unlink(join(this.groupsDir, entry));
      }
      for (const entry of await readdir(this.topicsDir, { withFileTypes: true })) {
        if (entry.isDirectory() && TOPIC_NAME.test(entry.name)) await this.recoverTopic(entry.name);
      }
      this.phase = 'open';
    } catch (error) {
      await this.closeHandles();
      await this.releaseLock();
      throw error;
    }
  }

  private async recoverTopic(name: string): Promise<void> {
    const dir = join(this.topicsDir, name);
    const segments = (await readdir(dir))
      .map((file) => segmentBase(file))
      .filter((base): base is number => base !== undefined)
      .sort((a, b) => a - b)
      .map((base) => newSegment(dir, base));
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i];
      const sealed = i < segments.length - 1;
      if (sealed && (await loadSegmentIndex(segment))) continue;
      const scan = await scanSegment(segment);
      // A sealed segment scanned whole gets its index now, so the next open skips its records.
      if (sealed && !scan.tornReason) await writeSegmentIndex(segment, this.durable);
      if (!scan.tornReason) continue;
      const later = segments.slice(i + 1);
      if (later.some((s) => s.records.length > 0) || (await this.anyNonEmpty(later))) {
        throw new CorruptLogError(
          `${segment.path}: ${scan.tornReason} at byte ${scan.validBytes}, but later segments hold records`,
        );
      }
      // A torn tail is an append that was never acknowledged: cut it and everything after it.
      await truncateFile(segment.path, scan.validBytes);
      for (const empty of later) {
        await dropSegmentIndex(empty);
        await unlink(empty.path);
      }
      segments.length = i + 1;
      this.recoveries.push({
        topic: name,
        segment: segment.path,
        droppedBytes: scan.fileBytes - scan.validBytes,
        reason: scan.tornReason,
      });
      break;
    }
    const last = segments.at(-1);
    // The last segment is the one appended to: it has no index until the log rolls past it.
    if (last) await dropSegmentIndex(last);
    if (last && last.records.length > 0) {
      const partial = await incompleteTail(last);
      if (partial > last.records.length) {
        throw new CorruptLogError(`${last.path}: the last append started in an earlier segment`);
      }
      if (partial > 0) {
        const cut = last.records.at(last.records.length - partial);
        await truncateFile(last.path, cut);
        this.recoveries.push({
          topic: name,
          segment: last.path,
          droppedBytes: last.size - cut,
          reason: `append of which only ${partial} record(s) were written`,
        });
        last.records.truncate(last.records.length - partial);
        last.size = cut;
      }
    }
    let expected = 0;
    for (const segment of segments) {
      if (segment.base !== expected) {
        throw new CorruptLogError(`${segment.path}: starts at offset ${segment.base}, expected ${expected}`);
      }
      expected += segment.records.length;
    }
    if (last) last.handle = Promise.resolve(await open(last.path, 'r+'));
    this.topics.set(name, this.newTopicState(name, segments, expected));
  }

  private async anyNonEmpty(segments: Segment[]): Promise<boolean> {
    for (const segment of segments) if ((await stat(segment.path)).size > 0) return true;
    return false;
  }

  private newTopicState(name: string, segments: Segment[], next: number): TopicState {
    return {
      name,
      dir: join(this.topicsDir, name),
      segments,
      next,
      queue: [],
      draining: false,
      drained: Promise.resolve(),
      tail: { start: 0, length: 0 },
    };
  }

  private assertOpen(): void {
    if (this.phase !== 'open' && this.phase !== 'closing-subscriptions') {
      throw new Error(
        this.phase === 'new' || this.phase === 'opening' ? 'event log is not open' : 'event log is closed',
      );
    }
  }

  async append(topic: string, events: EventEnvelope[], options: AppendOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    assertTopic(topic);
    assertSinglePartition(topic, options.partition);
    if (!Array.isArray(events)) throw new TypeError('events must be an array');
    if (events.length === 0) return [];
    let state = this.topics.get(topic);
    if (!state) {
      state = this.newTopicState(topic, [], 0);
      this.topics.set(topic, state);
    }
    if (state.failed) throw state.failed;
    const clean = events.map(cleanEnvelope);
    const frames = clean.map((event, i) => encodeRecord(event, i, clean.length));
    const bytes = frames.reduce((sum, frame) => sum + frame.length, 0);
    this.counters.appends++;
    const target = state;
    return new Promise<StoredEvent[]>((resolve, reject) => {
      target.queue.push({ events: clean, frames, bytes, resolve, reject });
      if (!target.draining) target.drained = this.drain(target);
    });
  }

  /** Group commit: whatever queued up while the previous write+sync ran goes out in the next one. */
  private async drain(state: TopicState): Promise<void> {
    state.draining = true;
    try {
      while (state.queue.length > 0) {
        let take = 1;
        let bytes = state.queue[0].bytes;
        while (take < state.queue.length && bytes + state.queue[take].bytes <= MAX_WRITE_BYTES) {
          bytes += state.queue[take++].bytes;
        }
        await this.write(state, state.queue.splice(0, take), bytes);
      }
    } finally {
      state.draining = false;
    }
  }

  private async write(state: TopicState, batch: PendingAppend[], bytes: number): Promise<void> {
    let segment: Segment;
    try {
      if (state.failed) throw state.failed;
      segment = await this.writableSegment(state, bytes);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    const start = segment.size;
    const frames = batch.flatMap((pending) => pending.frames);
    try {
      const handle = await segment.handle!;
      await writeFully(handle, frames.length === 1 ? frames[0] : Buffer.concat(frames, bytes), start);
      this.counters.writes++;
      if (this.durable) {
        await handle.datasync();
        this.counters.syncs++;
      }
    } catch (error) {
      await this.rollBack(state, segment, start);
      for (const pending of batch) pending.reject(error);
      return;
    }
    let offset = state.next;
    let position = start;
    const results = batch.map((pending) =>
      pending.events.map((event, i) => {
        segment.records.push(position);
        position += pending.frames[i].length;
        return { ...event, topic: state.name, partition: 0, offset: offset++ };
      }),
    );
    segment.size = position;
    remember(state.tail, segment, start, frames, bytes);
    state.next = offset;
    batch.forEach((pending, i) => pending.resolve(results[i]));
    for (const subscription of this.subscriptions)
      if (subscription.topics.has(state.name)) subscription.notify();
  }

  /** Removes a failed write's bytes so the next record follows the last acknowledged one. */
  private async rollBack(state: TopicState, segment: Segment, start: number): Promise<void> {
    try {
      await (await segment.handle!).truncate(start);
    } catch (error) {
      state.failed = new Error(
        `topic ${state.name} refuses writes after a failed write could not be undone`,
        {
          cause: error,
        },
      );
    }
  }

  private async writableSegment(state: TopicState, bytes: number): Promise<Segment> {
    const current = state.segments.at(-1);
    if (!current) {
      await mkdir(state.dir, { recursive: true });
      if (this.durable) await syncDir(this.topicsDir);
      return this.addSegment(state, 0);
    }
    const full = current.size >= this.segmentBytes || current.size + bytes > MAX_SEGMENT_BYTES;
    return current.records.length > 0 && full ? this.addSegment(state, state.next) : current;
  }

  private async addSegment(state: TopicState, base: number): Promise<Segment> {
    const segment = newSegment(state.dir, base);
    segment.handle = open(segment.path, 'wx+');
    await segment.handle;
    if (this.durable) await syncDir(state.dir);
    const sealed = state.segments.at(-1);
    state.segments.push(segment);
    if (sealed) this.indexInBackground(sealed);
    return segment;
  }

  /** Off the append path: without the index, the next open scans the segment instead. */
  private indexInBackground(segment: Segment): void {
    const writing = writeSegmentIndex(segment, this.durable)
      .catch((error: unknown) => this.onError(error, `writing the index of ${segment.path}`))
      .finally(() => this.indexWrites.delete(writing));
    this.indexWrites.add(writing);
  }

  private readHandle(segment: Segment): Promise<FileHandle> {
    if (!segment.handle) {
      const handle = open(segment.path, 'r');
      segment.handle = handle.catch((error: unknown) => {
        segment.handle = undefined;
        throw error;
      });
    }
    return segment.handle;
  }

  /** The records of the bounded batch from `from`: one segment, at most `end`, one disk read. */
  private planBatch(topic: string, from: number, end: number): BatchPlan | undefined {
    const state = this.topics.get(topic);
    if (!state || from >= end) return undefined;
    const segments = state.segments;
    let low = 0;
    let high = segments.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (segments[mid].base <= from) low = mid;
      else high = mid - 1;
    }
    const segment = segments[low];
    const records = segment.records;
    const first = from - segment.base;
    const limit = Math.min(records.length, end - segment.base, first + READ_BATCH_RECORDS);
    const start = records.at(first);
    let last = first + 1;
    while (last < limit && records.at(last) - start < READ_BATCH_BYTES) last++;
    const stop = last < records.length ? records.at(last) : segment.size;
    return { segment, first, last, start, stop };
  }

  /**
   * Reads a planned batch: the events of `types` (all without it). Every record's frame is checked,
   * skipped or not; with a `scanner`, the disk read and the checks are done on its thread, and so are
   * the cuts of the fields its request leaves `unread` (on the caller's thread a cut would cost about
   * what it saves the parse).
   */
  private async readBatch(
    topic: string,
    plan: BatchPlan,
    types: ReadonlySet<string> | undefined,
    scanner?: { worker: RangeScanner; request: Pick<RangeRequest, 'types' | 'unread'> },
  ): Promise<StoredEvent[]> {
    const { segment, first, last, start, stop } = plan;
    const positions = segment.records.relative(first, last, start);
    let range: ScannedRange;
    const recent = recall(this.topics.get(topic)!.tail, segment, start, stop);
    if (recent || !scanner) {
      let buf = recent;
      if (!buf) {
        buf = Buffer.allocUnsafe(stop - start);
        await readFully(await this.readHandle(segment), buf, start);
      }
      // The recent bytes are shared by every reader; a buffer read from disk is this read's own.
      range = { buf, ...scanRange(buf, positions, { types }, !recent) };
    } else {
      range = await scanner.worker.scan({ path: segment.path, start, stop, positions, ...scanner.request });
    }
    const { buf, kept, corrupt } = range;
    if (corrupt) {
      throw new CorruptLogError(
        `${segment.path}: ${corrupt.reason} at offset ${segment.base + first + corrupt.index}`,
      );
    }
    const events: StoredEvent[] = [];
    for (let k = 0; k < kept.length; k += 3) {
      const body = parseRecord(buf, kept[k + 1], kept[k + 2]);
      if (types && !types.has(body.type)) continue;
      events.push(toStoredEvent(body, topic, segment.base + first + kept[k]));
    }
    return events;
  }

  async *read(topic: string, options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    for await (const batch of this.readBatches(topic, options)) yield* batch;
  }

  async *readBatches(topic: string, options: ReadOptions = {}): AsyncIterable<StoredEvent[]> {
    this.assertOpen();
    assertTopic(topic);
    assertSinglePartition(topic, options.partition);
    let from = options.fromOffset ?? 0;
    if (!isOffset(from)) throw new RangeError(`fromOffset must be a non-negative integer, not ${from}`);
    const types = typeFilter(options);
    const unread = unreadFilter(options);
    const end = this.host.end(topic);
    const scanner =
      end > from && end - from >= this.scanInWorkerFrom
        ? { worker: new RangeScanner(), request: { types: types && [...types], unread } }
        : undefined;
    // Batches ahead: the disk reads (and with the scanner, the checks) of the next ones overlap the
    // caller's work on this one.
    const ahead: Promise<StoredEvent[]>[] = [];
    const depth = scanner ? SCANNED_BATCHES_AHEAD : 1;
    try {
      for (;;) {
        while (ahead.length < depth) {
          const plan = this.planBatch(topic, from, end);
          if (!plan) break;
          ahead.push(this.readBatch(topic, plan, types, scanner));
          from = plan.segment.base + plan.last;
        }
        const next = ahead.shift();
        if (!next) break;
        const events = await next;
        if (events.length > 0) yield events;
      }
    } finally {
      // A caller that stops early leaves reads in flight; their outcomes no longer matter.
      for (const read of ahead) read.catch(() => undefined);
      await scanner?.worker.close();
    }
  }

  async size(topic: string): Promise<number> {
    this.assertOpen();
    assertTopic(topic);
    return this.host.end(topic);
  }

  async ends(topic: string): Promise<number[]> {
    return [await this.size(topic)];
  }

  async subscribe(options: SubscriptionOptions): Promise<Subscription> {
    this.assertOpen();
    const { group, from } = options;
    if (typeof group !== 'string' || group === '') throw new TypeError('group is required');
    if (!Array.isArray(options.topics) || options.topics.length === 0)
      throw new TypeError('topics are required');
    options.topics.forEach(assertTopic);
    if (typeof options.handle !== 'function') throw new TypeError('handle must be a function');
    assertSubscriptionCounts(options);
    const topics = [...new Set(options.topics)];
    let committer: GroupCommitter | undefined;
    let startAt: (topic: string) => number;
    if (from === 'committed') {
      committer = await this.committer(group);
      this.assertOpen();
      for (const other of this.subscriptions) {
        if (other.group === group && other.commits && topics.some((topic) => other.topics.has(topic))) {
          throw new Error(
            `group ${group} already has a committed subscription to one of ${topics.join(', ')}`,
          );
        }
      }
      const committed = committer;
      startAt = (topic) => committed.position(positionKey(topic));
    } else if (from === 'beginning') {
      startAt = () => 0;
    } else if (from === 'end') {
      startAt = (topic) => this.host.end(topic);
    } else if (typeof from === 'object' && from !== null && typeof from.positions === 'object') {
      const positions = from.positions;
      for (const [key, offset] of Object.entries(positions)) {
        if (!isOffset(offset)) throw new RangeError(`position ${key} must be a non-negative integer`);
      }
      startAt = (topic) => positions[positionKey(topic)] ?? 0;
    } else {
      throw new TypeError(`invalid start ${JSON.stringify(from)}`);
    }
    const start = new Map(topics.map((topic) => [topic, startAt(topic)]));
    // One partition per topic, and a committing group has one member here: it owns them all.
    options.onAssignment?.(topics.map((topic) => ({ topic, partition: 0 })));
    const subscription = new FileSubscription(this.host, options, start, committer);
    this.subscriptions.add(subscription);
    return subscription;
  }

  private committer(group: string): Promise<GroupCommitter> {
    let committer = this.committers.get(group);
    if (!committer) {
      const file = groupFile(this.groupsDir, group);
      committer = readGroupPositions(file).then(
        (positions) =>
          new GroupCommitter(
            file,
            this.durable,
            positions,
            (error) => this.onError(error, `committing positions of group ${group}`),
            this.commitIntervalMs,
          ),
      );
      committer.catch(() => this.committers.delete(group));
      this.committers.set(group, committer);
    }
    return committer;
  }

  async ping(): Promise<void> {
    this.assertOpen();
    for (const state of this.topics.values()) if (state.failed) throw state.failed;
    await access(this.dir, constants.W_OK);
  }

  /** Lets subscriptions finish their in-flight events, flushes pending appends, releases files. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.phase === 'new') {
      this.phase = 'closed';
      return;
    }
    await this.opening?.catch(() => undefined);
    if (this.phase === 'closed') return;
    this.phase = 'closing-subscriptions';
    const results = await Promise.allSettled([...this.subscriptions].map((s) => s.close()));
    this.phase = 'closing';
    for (const state of this.topics.values()) await state.drained;
    await Promise.all(this.indexWrites);
    for (const committer of this.committers.values()) {
      await committer
        .then((c) => c.flush())
        .catch((error: unknown) => results.push({ status: 'rejected', reason: error }));
    }
    await this.closeHandles();
    await this.releaseLock?.();
    this.phase = 'closed';
    const failure = results.find((r) => r.status === 'rejected');
    if (failure) throw failure.reason;
  }

  private async closeHandles(): Promise<void> {
    const handles = [...this.topics.values()].flatMap((state) => state.segments.map((s) => s.handle));
    await Promise.allSettled(handles.map(async (handle) => (await handle)?.close()));
  }
}
