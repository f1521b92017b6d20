import { once } from 'node:events';
import { closeSync, openSync, readSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { crc32 } from 'node:zlib';

/**
 * Checking the records of a segment's byte range, and a worker thread that reads and checks ranges for
 * long reads. A replay spends about a third of its time on what is done here (the disk read, each
 * record's CRC, the look at its type) and the rest parsing and folding what it keeps; in the worker,
 * the first part runs on another core while the caller parses and folds.
 *
 * The worker loads this very file, so it imports nothing but Node's own modules: from the sources
 * (tests) Node runs it with its types stripped, from `dist` as it was built.
 */

/** Record framing on disk: [u32 BE length][u32 BE crc32 of the JSON][JSON bytes]. */
export const HEADER_BYTES = 8;
/** Events carry object keys, never binaries; anything this large is a bug, on write or on read. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export type FrameCheck = { ok: true; length: number } | { ok: false; reason: string };

/** Validates the frame starting at `at` in `buf`, which must hold at least the header. */
export function checkFrame(buf: Buffer, at: number, available: number): FrameCheck {
  if (available < HEADER_BYTES) return { ok: false, reason: 'truncated header' };
  const length = buf.readUInt32BE(at);
  if (length === 0 || length > MAX_RECORD_BYTES) return { ok: false, reason: `bad length ${length}` };
  if (available < HEADER_BYTES + length) return { ok: false, reason: 'truncated record' };
  const crc = buf.readUInt32BE(at + 4);
  if (crc32(buf.subarray(at + HEADER_BYTES, at + HEADER_BYTES + length)) !== crc) {
    return { ok: false, reason: 'checksum mismatch' };
  }
  return { ok: true, length };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const OPENING_BRACE = 0x7b;
const CLOSING_BRACE = 0x7d;
const OPENING_BRACKET = 0x5b;
const CLOSING_BRACKET = 0x5d;
const BATCH_OPENING = Buffer.from('{"$batch":[');
const BATCH_ID = Buffer.from('],"id":"');
const ID_OPENING = Buffer.from('{"id":"');
const TYPE_FIELD = Buffer.from(',"type":"');

/** Whether `buf` holds `bytes` at `at`, within `end`. */
function holds(buf: Buffer, at: number, end: number, bytes: Buffer): boolean {
  if (at + bytes.length > end) return false;
  // A loop: for a few bytes it is cheaper than a call into Buffer.compare.
  for (let i = 0; i < bytes.length; i++) if (buf[at + i] !== bytes[i]) return false;
  return true;
}

/** Where the JSON string whose content starts at `at` closes; -1 when it has an escape or runs past `end`. */
function plainStringEnd(buf: Buffer, at: number, end: number): number {
  for (let i = at; i < end; i++) {
    const byte = buf[i];
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH) return -1;
  }
  return -1;
}

/** `batchMarkerEnd`: the JSON does not open with a batch marker. */
const NO_MARKER = -1;
/** `batchMarkerEnd`: it opens like one, but not as `encodeRecord` writes it. */
const MALFORMED_MARKER = -2;

/**
 * Where the batch marker `encodeRecord` writes first (`{"$batch":[3,8],"id":"…`) ends, for the JSON
 * at `open`: the position of its `]`, followed by `,"id":"`. `NO_MARKER` or `MALFORMED_MARKER`
 * otherwise.
 */
function batchMarkerEnd(buf: Buffer, open: number, end: number): number {
  if (!holds(buf, open, end, BATCH_OPENING)) return NO_MARKER;
  let i = open + BATCH_OPENING.length;
  while (i < end && ((buf[i] >= DIGIT_0 && buf[i] <= DIGIT_9) || buf[i] === COMMA)) i++;
  return holds(buf, i, end, BATCH_ID) ? i : MALFORMED_MARKER;
}

/**
 * Where the type string of the record at `at` starts: `encodeRecord` writes `$batch` (when present),
 * then `id` and `type` first, so the type is the string after the id. -1 when the record does not open
 * that way or the id has an escape.
 */
function typeStart(buf: Buffer, at: number, end: number): number {
  let i = at + HEADER_BYTES;
  const marker = batchMarkerEnd(buf, i, end);
  if (marker >= 0) {
    i = marker + BATCH_ID.length;
  } else if (marker === MALFORMED_MARKER) {
    return -1;
  } else if (holds(buf, i, end, ID_OPENING)) {
    i += ID_OPENING.length;
  } else {
    return -1;
  }
  const idEnd = plainStringEnd(buf, i, end);
  if (idEnd < 0 || !holds(buf, idEnd + 1, end, TYPE_FIELD)) return -1;
  return idEnd + 1 + TYPE_FIELD.length;
}

/**
 * Blanks a record's batch marker out of its JSON (`{"$batch":[3,8],"id":…` becomes spaces, which JSON
 * allows, then `{"id":…`), so that it parses into the envelope alone and is finished in place rather
 * than copied (`toStoredEvent`). Only in a buffer of the reader's own: its CRC no longer matches.
 */
function dropBatchMarker(buf: Buffer, at: number, length: number): void {
  const open = at + HEADER_BYTES;
  const marker = batchMarkerEnd(buf, open, at + HEADER_BYTES + length);
  if (marker < 0) return;
  buf.fill(SPACE, open, marker + 1);
  buf[marker + 1] = OPENING_BRACE;
}

/**
 * Payload fields a read leaves out, by event type (`ReadOptions.unread`), as the bytes of their
 * names in JSON (what `encodeRecord` writes between the quotes): a replay that folds a few fields of
 * large events does not pay to decode the rest.
 */
export type UnreadFields = ReadonlyMap<string, readonly Buffer[]>;

export function unreadFields(unread: Readonly<Record<string, readonly string[]>>): UnreadFields {
  const named = (field: string) => Buffer.from(JSON.stringify(field).slice(1, -1));
  return new Map(Object.entries(unread).map(([type, fields]) => [type, fields.map(named)]));
}

function isSpace(byte: number): boolean {
  return byte === SPACE || byte === LINE_FEED || byte === CARRIAGE_RETURN || byte === TAB;
}

function skipSpace(buf: Buffer, at: number, end: number): number {
  while (at < end && isSpace(buf[at])) at++;
  return at;
}

/** Just past the JSON string whose opening quote is at `at`; -1 when it runs past `end`. */
function stringEnd(buf: Buffer, at: number, end: number): number {
  for (let i = at + 1; i < end; i++) {
    const byte = buf[i];
    if (byte === BACKSLASH) i++;
    else if (byte === QUOTE) return i + 1;
  }
  return -1;
}

/** What a byte is to `valueEnd`'s walk of an object or array: 0 for most, which it passes over. */
const STRUCTURE = new Uint8Array(256);
const OPENS_STRING = 1;
const OPENS = 2;
const CLOSES = 3;
STRUCTURE[QUOTE] = OPENS_STRING;
STRUCTURE[OPENING_BRACE] = OPENS;
STRUCTURE[OPENING_BRACKET] = OPENS;
STRUCTURE[CLOSING_BRACE] = CLOSES;
STRUCTURE[CLOSING_BRACKET] = CLOSES;

/** Just past the JSON value that starts at `at`; -1 when it does not end within `end`. */
function valueEnd(buf: Buffer, at: number, end: number): number {
  const first = buf[at];
  if (first === QUOTE) return stringEnd(buf, at, end);
  if (first === OPENING_BRACE || first === OPENING_BRACKET) {
    // One flat loop over the bytes, strings included: the walk of a large nested value is most of a cut.
    let depth = 0;
    for (let i = at; i < end; i++) {
      const kind = STRUCTURE[buf[i]];
      if (kind === 0) continue;
      if (kind === OPENS_STRING) {
        for (i++; i < end; i++) {
          const byte = buf[i];
          if (byte === QUOTE) break;
          if (byte === BACKSLASH) i++;
        }
      } else if (kind === OPENS) {
        depth++;
      } else if (--depth === 0) {
        return i + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let i = at;
  while (
    i < end &&
    buf[i] !== COMMA &&
    buf[i] !== CLOSING_BRACE &&
    buf[i] !== CLOSING_BRACKET &&
    !isSpace(buf[i])
  )
    i++;
  return i > at ? i : -1;
}

/** Whether the JSON string from `at` (its opening quote) to `after` (past its closing one) is one of `names`. */
function isOneOf(buf: Buffer, at: number, after: number, names: readonly Buffer[]): boolean {
  const length = after - at - 2;
  for (const name of names) if (name.length === length && holds(buf, at + 1, after - 1, name)) return true;
  return false;
}

/** Where the value of a member starts, given its key's end (-1: the key did not end); -1 without a colon. */
function valueAfter(buf: Buffer, keyEnd: number, end: number): number {
  if (keyEnd < 0) return -1;
  const colon = skipSpace(buf, keyEnd, end);
  return buf[colon] === COLON ? skipSpace(buf, colon + 1, end) : -1;
}

/**
 * The members of the JSON object whose `{` is at `open`, as `[keyAt, keyEnd, valueAt, valueEnd]`
 * (ends: just past) in `into`; the object's end (past its `}`), or -1 when it is not one well-formed
 * object within `end`.
 */
function objectMembers(buf: Buffer, open: number, end: number, into: number[]): number {
  into.length = 0;
  if (buf[open] !== OPENING_BRACE) return -1;
  let i = skipSpace(buf, open + 1, end);
  if (buf[i] === CLOSING_BRACE) return i + 1;
  for (;;) {
    if (buf[i] !== QUOTE) return -1;
    const keyEnd = stringEnd(buf, i, end);
    const value = valueAfter(buf, keyEnd, end);
    if (value < 0) return -1;
    const after = valueEnd(buf, value, end);
    if (after < 0) return -1;
    into.push(i, keyEnd, value, after);
    i = skipSpace(buf, after, end);
    if (buf[i] === CLOSING_BRACE) return i + 1;
    if (buf[i] !== COMMA) return -1;
    i = skipSpace(buf, i + 1, end);
  }
}

/**
 * Where the value of the member named `name` starts, looking at the members that follow `after` (the
 * end of a member's value) in their object; -1 when none of them is named so.
 */
function laterMemberValue(buf: Buffer, after: number, end: number, name: readonly Buffer[]): number {
  for (let i = after; ;) {
    i = skipSpace(buf, i, end);
    if (buf[i] !== COMMA) return -1;
    const key = skipSpace(buf, i + 1, end);
    if (buf[key] !== QUOTE) return -1;
    const keyEnd = stringEnd(buf, key, end);
    const value = valueAfter(buf, keyEnd, end);
    if (value < 0) return -1;
    if (isOneOf(buf, key, keyEnd, name)) return value;
    i = valueEnd(buf, value, end);
    if (i < 0) return -1;
  }
}

const PAYLOAD_NAME: readonly Buffer[] = [Buffer.from('payload')];
// Reused by every call: the walk allocates nothing per record.
const payloadMembers: number[] = [];

/**
 * Cuts the members named `fields` out of the payload of the record at `at` (its JSON an envelope as
 * `encodeRecord` writes it, batch marker and all), moving what follows back over them, and answers
 * the JSON's new length. A record it cannot walk is left as it is. Only in a buffer of the reader's
 * own: the record's CRC no longer matches.
 */
export function cutPayloadFields(buf: Buffer, at: number, length: number, fields: readonly Buffer[]): number {
  return cutAfterType(buf, at, length, typeStart(buf, at, at + HEADER_BYTES + length), fields);
}

/** `cutPayloadFields`, given where the record's type starts (`typeStart`), which a scan has found. */
function cutAfterType(
  buf: Buffer,
  at: number,
  length: number,
  type: number,
  fields: readonly Buffer[],
): number {
  const start = at + HEADER_BYTES;
  const end = start + length;
  // The walk starts after the type, which `encodeRecord` writes second, and skips to the payload.
  const typeEnd = type < 0 ? -1 : stringEnd(buf, type - 1, end);
  const payloadAt = typeEnd < 0 ? -1 : laterMemberValue(buf, typeEnd, end, PAYLOAD_NAME);
  return cutMembers(buf, payloadAt, end, fields) - start;
}

/**
 * `cutPayloadFields` for an envelope's JSON alone, `[at, at + length)`, its members in any order (a
 * Kafka record's value, `JSON.stringify` of the envelope): the walk goes member by member to the
 * payload, passing over the values before it without looking into them.
 */
export function cutEnvelopeFields(
  buf: Buffer,
  at: number,
  length: number,
  fields: readonly Buffer[],
): number {
  const end = at + length;
  return cutMembers(buf, memberValue(buf, at, end, PAYLOAD_NAME), end, fields) - at;
}

/** Where the value of the member named `name` of the object whose `{` is at `open` starts; -1 without one. */
function memberValue(buf: Buffer, open: number, end: number, name: readonly Buffer[]): number {
  if (buf[open] !== OPENING_BRACE) return -1;
  const key = skipSpace(buf, open + 1, end);
  if (buf[key] !== QUOTE) return -1;
  const keyEnd = stringEnd(buf, key, end);
  const value = valueAfter(buf, keyEnd, end);
  if (value < 0 || isOneOf(buf, key, keyEnd, name)) return value;
  const after = valueEnd(buf, value, end);
  return after < 0 ? -1 : laterMemberValue(buf, after, end, name);
}

/**
 * Cuts the members named `fields` out of the object whose `{` is at `open` (-1: none was found),
 * moving the bytes up to `end` back over them, and answers where they now end: `end` when nothing
 * was cut, or the object could not be walked.
 */
function cutMembers(buf: Buffer, open: number, end: number, fields: readonly Buffer[]): number {
  const close = open < 0 ? -1 : objectMembers(buf, open, end, payloadMembers);
  if (close < 0) return end;
  const cut = (m: number) => isOneOf(buf, payloadMembers[m], payloadMembers[m + 1], fields);
  let anyCut = false;
  for (let m = 0; m < payloadMembers.length && !anyCut; m += 4) anyCut = cut(m);
  if (!anyCut) return end;
  // The kept members, rewritten in place from the object's `{`: the writes never overtake the reads,
  // and members before the first cut stay where they are.
  let write = open + 1;
  for (let m = 0; m < payloadMembers.length; m += 4) {
    if (cut(m)) continue;
    if (write > open + 1) buf[write++] = COMMA;
    const keyAt = payloadMembers[m];
    const memberEnd = payloadMembers[m + 3];
    if (write !== keyAt) buf.copyWithin(write, keyAt, memberEnd);
    write += memberEnd - keyAt;
  }
  buf[write++] = CLOSING_BRACE;
  buf.copyWithin(write, close, end);
  return write + (end - close);
}

/** What checking a range found: the records to parse, and the first corrupt one, if any. */
export interface RangeScan {
  /** `[index, position, length]` per record to parse: its index in the range, where it is, its JSON's length (after any cut). */
  kept: Uint32Array;
  /** The range's first record that failed its check; the records after it were not looked at. */
  corrupt?: { index: number; reason: string };
}

/** Which records a read keeps, and what it leaves out of them (`ReadOptions.types`, `unread`). */
export interface RecordFilter {
  types?: ReadonlySet<string>;
  unread?: UnreadFields;
}

/** What a scan does with the records of one type: keep them or not, and cut which payload fields. */
interface TypeRule {
  wanted: boolean;
  cuts?: readonly Buffer[];
}

/**
 * Values by name, found by the name's bytes where they lie (grouped by length) rather than by
 * decoding them into a string: a replay matches a million records' types this way, here and in
 * Kafka's fetch worker (their event-type headers).
 */
export class ByNameBytes<T> {
  private readonly byLength = new Map<number, { name: Buffer; value: T }[]>();

  constructor(entries: Iterable<readonly [string, T]>) {
    for (const [type, value] of entries) {
      const name = Buffer.from(type);
      const sameLength = this.byLength.get(name.length) ?? [];
      sameLength.push({ name, value });
      this.byLength.set(name.length, sameLength);
    }
  }

  /** Whether it holds no name. */
  get empty(): boolean {
    return this.byLength.size === 0;
  }

  /** The value of the name whose bytes are `[start, stop)` of `buf`; undefined for any other. */
  of(buf: Buffer, start = 0, stop = buf.length): T | undefined {
    const sameLength = this.byLength.get(stop - start);
    if (sameLength) for (const { name, value } of sameLength) if (holds(buf, start, stop, name)) return value;
    return undefined;
  }
}

/** The set of `names`, by their bytes. */
export function namesByBytes(names: Iterable<string>): ByNameBytes<true> {
  return new ByNameBytes([...names].map((name) => [name, true] as const));
}

/** A filter's rules by the bytes of their types' names: a scan matches each record's type where it lies. */
class TypeRules {
  private readonly rules: ByNameBytes<TypeRule>;
  private readonly unlisted: TypeRule;

  constructor({ types, unread }: RecordFilter, owned: boolean) {
    this.unlisted = { wanted: !types };
    const cutsOf = (type: string) => (owned ? unread?.get(type) : undefined);
    const listed = new Set([...(types ?? []), ...(owned && unread ? unread.keys() : [])]);
    this.rules = new ByNameBytes(
      [...listed].map((type) => [type, { wanted: !types || types.has(type), cuts: cutsOf(type) }] as const),
    );
  }

  /** Whether any type has a rule: else a scan need not look for the records' types. */
  get any(): boolean {
    return !this.rules.empty;
  }

  /** The rule of the type whose escape-free string content is `[start, stop)` of `buf`. */
  of(buf: Buffer, start: number, stop: number): TypeRule {
    return this.rules.of(buf, start, stop) ?? this.unlisted;
  }
}

/**
 * Checks every record of a range (`positions`: where each starts in `buf`) and keeps those that may
 * be of `filter.types` (all without it): a record whose type cannot be seen without parsing is kept
 * for the caller to parse and decide. In a buffer of the caller's own (`owned`), kept records lose
 * their batch markers (`dropBatchMarker`) and their `filter.unread` fields (`cutPayloadFields`) once
 * checked.
 */
export function scanRange(
  buf: Buffer,
  positions: ArrayLike<number>,
  filter: RecordFilter = {},
  owned = false,
): RangeScan {
  const rules = new TypeRules(filter, owned);
  const typed = rules.any;
  const kept = new Uint32Array(positions.length * 3);
  let n = 0;
  for (let i = 0; i < positions.length; i++) {
    const at = positions[i];
    const check = checkFrame(buf, at, buf.length - at);
    if (!check.ok) return { kept: kept.subarray(0, n), corrupt: { index: i, reason: check.reason } };
    let length = check.length;
    // Found once: the type decides, and the cut walks on from it. A type with an escape is the parser's.
    const end = at + HEADER_BYTES + length;
    const typeAt = typed ? typeStart(buf, at, end) : -1;
    const typeEnd = typeAt < 0 ? -1 : plainStringEnd(buf, typeAt, end);
    const rule = typeEnd < 0 ? undefined : rules.of(buf, typeAt, typeEnd);
    if (rule && !rule.wanted) continue;
    if (owned) {
      // The cut first: it finds the payload from the type, which the marker's blanking moves.
      if (rule?.cuts) length = cutAfterType(buf, at, length, typeAt, rule.cuts);
      dropBatchMarker(buf, at, length);
    }
    kept[n++] = i;
    kept[n++] = at;
    kept[n++] = length;
  }
  return { kept: kept.subarray(0, n) };
}

/**
 * A range of a segment file for the worker: `[start, stop)`, its records' positions relative to
 * `start`. The positions are handed over to the worker, not copied: the caller cannot use them again.
 */
export interface RangeRequest {
  path: string;
  start: number;
  stop: number;
  positions: Uint32Array;
  types?: readonly string[];
  unread?: Readonly<Record<string, readonly string[]>>;
}

/** A range read and checked: its bytes (`buf[0]` is `start`) and what `scanRange` found in them. */
export interface ScannedRange extends RangeScan {
  buf: Buffer;
}

const WORKER_ROLE = 'thumbforge.event-log.range-scanner';

type Reply =
  | { id: number; buf: ArrayBuffer; kept: Uint32Array; corrupt?: RangeScan['corrupt'] }
  | { id: number; error: string };

/**
 * Reads and checks segment ranges in a worker thread, one after another, in the order asked. One per
 * long read, closed when the read ends; it keeps the process alive only while it owes an answer.
 */
export class RangeScanner {
  private readonly worker = new Worker(new URL(import.meta.url), { workerData: WORKER_ROLE });
  private readonly pending = new Map<
    number,
    { resolve(range: ScannedRange): void; reject(error: Error): void }
  >();
  private nextId = 0;
  private failure?: Error;
  private exited = false;
  private closing?: Promise<void>;

  constructor() {
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      if (!waiting) return;
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve({ buf: Buffer.from(reply.buf), kept: reply.kept, corrupt: reply.corrupt });
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => {
      this.exited = true;
      this.fail(new Error('the range scanner stopped'));
    });
  }

  scan(request: RangeRequest): Promise<ScannedRange> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<ScannedRange>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Held only while it owes an answer: a read its caller dropped unfinished keeps no process alive.
      this.worker.ref();
      this.worker.postMessage({ id, ...request }, [request.positions.buffer as ArrayBuffer]);
    });
  }

  /** Lets the worker answer what it was asked, close its files and end; it takes no more. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.failure ??= new Error('the range scanner is closed');
    if (this.exited) return;
    const exited = once(this.worker, 'exit');
    this.worker.ref();
    this.worker.postMessage('close');
    await exited;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}

/** The worker's side: the file stays open between ranges, a read is synchronous on its own thread. */
function serveRanges(port: NonNullable<typeof parentPort>): void {
  const files = new Map<string, number>();
  port.on('message', (message: (RangeRequest & { id: number }) | 'close') => {
    if (message === 'close') {
      files.forEach((fd) => closeSync(fd));
      port.close();
      return;
    }
    const { id, path, start, stop, positions, types, unread } = message;
    try {
      let fd = files.get(path);
      if (fd === undefined) files.set(path, (fd = openSync(path, 'r')));
      // Its own ArrayBuffer, not a slice of Node's pool: it is handed over whole.
      const buf = Buffer.allocUnsafeSlow(stop - start);
      let done = 0;
      while (done < buf.length) {
        const read = readSync(fd, buf, done, buf.length - done, start + done);
        if (read === 0) break;
        done += read;
      }
      // A file shorter than its index says is a corrupt log, as on the caller's thread.
      const { kept, corrupt } =
        done < buf.length
          ? {
              kept: new Uint32Array(0),
              corrupt: { index: 0, reason: `segment ended ${buf.length - done} bytes early` },
            }
          : scanRange(
              buf,
              positions,
              { types: types && new Set(types), unread: unread && unreadFields(unread) },
              true,
            );
      const reply: Reply = { id, buf: buf.buffer as ArrayBuffer, kept, corrupt };
      port.postMessage(reply, [reply.buf, kept.buffer as ArrayBuffer]);
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies Reply);
    }
  });
}

if (!isMainThread && workerData === WORKER_ROLE && parentPort) serveRanges(parentPort);
