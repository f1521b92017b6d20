import { closeSync, fstatSync, openSync, read, readSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import type { ProjectionSnapshot } from './memory-projection-store.js';
import type { Positions } from './port.js';
import { IdIndex, searchSorted, type SnapshotDocuments } from './snapshot-documents.js';

/**
 * A projection snapshot on disk (version 3):
 *
 *     MAGIC
 *     documents   per collection, per document in ascending order of id (as strings compare):
 *                 [u32 BE CRC-32 of the bytes][the document's bytes (`encodeDocument`)]
 *     index       frames of [u32 BE length][bytes]: a JSON header (positions per projection, name and
 *                 document count per collection), then per collection its ids (each a frame of UTF-8),
 *                 where each document starts (f64 LE) and its length (u32 LE)
 *     trailer     [u64 BE where the index starts][u32 BE CRC-32 of the index][TRAILER_TAG]
 *
 * A start reads the index alone and finds a document by binary search over its ids; the document is
 * read from the file when it is first asked for, and its checksum checked then. Reading and keeping the
 * whole file took 0.6 s and 330 MB of memory after 1,000,000 billing events.
 *
 * Earlier releases' versions are still read. Version 2 is laid out as version 3, its documents all
 * structured-clone bytes: a release that reads only those sees version 3 as a foreign file, which it
 * ignores, rather than failing at a document. Version 1 (the JSON header, then an id frame and a
 * document frame per document in no order, then the CRC-32 of everything) is read whole, as it was.
 */
const MAGIC = Buffer.from('thumbforge-projections-3\n');
const MAGIC_V2 = Buffer.from('thumbforge-projections-2\n');
const MAGIC_V1 = Buffer.from('thumbforge-projections-1\n');
const TRAILER_TAG = Buffer.from('TFP2');
const TRAILER_BYTES = 16;

interface Header {
  positions: Record<string, Positions>;
  collections: { name: string; documents: number }[];
}

export class SnapshotFormatError extends Error {
  constructor(file: string, reason: string) {
    super(`${file}: not a usable projection snapshot (${reason})`);
    this.name = 'SnapshotFormatError';
  }
}

/** Bytes built up in memory, growing as needed: a collection's id frames. */
class Builder {
  private bytes = Buffer.allocUnsafe(1 << 16);
  length = 0;

  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + more));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  append(bytes: Buffer): void {
    this.reserve(bytes.length);
    this.length += bytes.copy(this.bytes, this.length);
  }

  /** Appends `text` as a frame of its UTF-8. */
  textFrame(text: string): void {
    const size = Buffer.byteLength(text);
    this.reserve(4 + size);
    this.length = this.bytes.writeUInt32BE(size, this.length);
    this.length += this.bytes.write(text, this.length);
  }

  /** The bytes appended, in a buffer of their own length. */
  done(): Buffer {
    return this.length === this.bytes.length ? this.bytes : Buffer.from(this.bytes.subarray(0, this.length));
  }
}

/** Writes a file through a buffer of `CHUNK_BYTES`, counting where it is. */
class ChunkedOutput {
  private static readonly CHUNK_BYTES = 1 << 20;
  private chunk = Buffer.allocUnsafe(ChunkedOutput.CHUNK_BYTES);
  private used = 0;
  /** Bytes written so far, buffered ones included. */
  position = 0;

  constructor(private readonly handle: FileHandle) {}

  /** Whether `length` more bytes go into the buffer without a flush. */
  fits(length: number): boolean {
    return this.used + length <= this.chunk.length;
  }

  /** Adds `bytes`, which must fit (`fits`). */
  private put(bytes: Buffer): void {
    this.used += bytes.copy(this.chunk, this.used);
    this.position += bytes.length;
  }

  putUInt32(value: number): void {
    this.used = this.chunk.writeUInt32BE(value, this.used);
    this.position += 4;
  }

  /** Adds a CRC-32 of `bytes`, then `bytes`; answers their length. */
  async writeChecked(bytes: Buffer): Promise<number> {
    if (!this.fits(4)) await this.flush();
    this.putUInt32(crc32(bytes));
    await this.write(bytes);
    return bytes.length;
  }

  /**
   * `writeChecked` of `text` in UTF-8, encoded straight into the buffer where it fits, its CRC-32
   * taken there: no buffer of its own per document.
   */
  async writeCheckedText(text: string): Promise<number> {
    const length = Buffer.byteLength(text);
    if (4 + length > this.chunk.length) return this.writeChecked(Buffer.from(text));
    if (!this.fits(4 + length)) await this.flush();
    const at = this.used + 4;
    this.chunk.write(text, at, length, 'utf8');
    this.chunk.writeUInt32BE(crc32(this.chunk.subarray(at, at + length)), this.used);
    this.used = at + length;
    this.position += 4 + length;
    return length;
  }

  async write(bytes: Buffer): Promise<void> {
    if (!this.fits(bytes.length)) await this.flush();
    if (this.fits(bytes.length)) return this.put(bytes);
    await this.writeOut(bytes);
    this.position += bytes.length;
  }

  async flush(): Promise<void> {
    await this.writeOut(this.chunk.subarray(0, this.used));
    this.used = 0;
  }

  /** Copies bytes `start` to `end` of `file`, read straight into the buffer by the thread pool. */
  async copy(file: SnapshotFile, start: number, end: number): Promise<void> {
    for (let at = start; at < end;) {
      if (this.used === this.chunk.length) await this.flush();
      const length = Math.min(end - at, this.chunk.length - this.used);
      await file.readInto(this.chunk, this.used, length, at);
      this.used += length;
      this.position += length;
      at += length;
    }
  }

  private async writeOut(bytes: Buffer): Promise<void> {
    for (let done = 0; done < bytes.length;) {
      done += (await this.handle.write(bytes, done, bytes.length - done)).bytesWritten;
    }
  }
}

/** Indexes of `docs` in ascending order of id; undefined when that is their own order. */
function idOrder(docs: SnapshotDocuments): Uint32Array | undefined {
  if (docs.inIdOrder) return undefined;
  const ids = Array.from({ length: docs.length }, (_, i) => docs.id(i));
  const order = Uint32Array.from({ length: docs.length }, (_, i) => i);
  return order.sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
}

/** A collection's part of the index: what a reader of the file needs to find its documents. */
interface CollectionIndex {
  name: string;
  /** The ids in document order, each a frame of UTF-8. */
  ids: Buffer;
  /** Where each id's frame starts in `ids`. */
  idStarts: Uint32Array;
  /** Where each document's bytes start in the file, after its CRC. */
  starts: Float64Array;
  lengths: Uint32Array;
}

/** The bytes of `array` in little-endian order, as the file stores numbers: a view where the host is. */
function littleEndian(array: Float64Array | Uint32Array): Buffer {
  const view = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  if (endianness() === 'LE') return view;
  const bytes = Buffer.allocUnsafe(array.byteLength);
  array.forEach((value, i) =>
    array instanceof Float64Array ? bytes.writeDoubleLE(value, i * 8) : bytes.writeUInt32LE(value, i * 4),
  );
  return bytes;
}

/**
 * The documents of each collection, each checksummed, and the index that finds them, which it
 * returns. The index goes out frame by frame with its CRC-32 kept running, so no copy of it is made:
 * after 1,000,000 documents it is about 49 MB.
 */
async function writeContents(output: ChunkedOutput, snapshot: ProjectionSnapshot): Promise<WrittenIndex> {
  const header: Header = {
    positions: Object.fromEntries(snapshot.positions),
    collections: [...snapshot.collections].map(([name, docs]) => ({ name, documents: docs.length })),
  };
  await output.write(MAGIC);
  const collections: CollectionIndex[] = [];
  for (const [name, docs] of snapshot.collections) {
    const ids = new Builder();
    const idStarts = new Uint32Array(docs.length);
    const starts = new Float64Array(docs.length);
    const lengths = new Uint32Array(docs.length);
    const order = idOrder(docs);
    for (let k = 0; k < docs.length;) {
      // In id order, a run of restored documents is copied as stored; a run of documents stored
      // otherwise is written one by one, and asked for once.
      const run = order ? undefined : docs.restoredRun?.(k);
      if (run?.restored instanceof IndexedDocuments) {
        await run.restored.copyRun(run.from, run.count, output, ids, { idStarts, starts, lengths }, k);
        k += run.count;
        continue;
      }
      for (const end = k + (run?.count ?? 1); k < end; k++) {
        const i = order ? order[k]! : k;
        idStarts[k] = ids.length;
        ids.textFrame(docs.id(i));
        starts[k] = output.position + 4;
        const stored = docs.stored?.(i) ?? docs.bytes(i);
        lengths[k] =
          typeof stored === 'string'
            ? await output.writeCheckedText(stored)
            : await output.writeChecked(stored);
      }
    }
    collections.push({ name, ids: ids.done(), idStarts, starts, lengths });
  }
  const indexStart = output.position;
  let crc = 0;
  const frame = async (bytes: Buffer) => {
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(bytes.length);
    crc = crc32(bytes, crc32(length, crc));
    await output.write(length);
    await output.write(bytes);
  };
  const headerBytes = Buffer.from(JSON.stringify(header));
  await frame(headerBytes);
  for (const { ids, starts, lengths } of collections) {
    await frame(ids);
    await frame(littleEndian(starts));
    await frame(littleEndian(lengths));
  }
  const trailer = Buffer.allocUnsafe(TRAILER_BYTES);
  trailer.writeBigUInt64BE(BigInt(indexStart), 0);
  trailer.writeUInt32BE(crc, 8);
  TRAILER_TAG.copy(trailer, 12);
  await output.write(trailer);
  await output.flush();
  // Objects of their own, as a reader's are: the live store's positions move on.
  return { collections, positions: structuredClone(header.positions) };
}

interface WrittenIndex {
  collections: CollectionIndex[];
  positions: Header['positions'];
}

/** Writes `snapshot` to `file` as `writeSnapshot` says, and returns the index it wrote. */
async function writeFile(file: string, snapshot: ProjectionSnapshot): Promise<WrittenIndex> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.tmp`;
  const handle = await open(temporary, 'w');
  let written: WrittenIndex;
  try {
    written = await writeContents(new ChunkedOutput(handle), snapshot);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  const dir = await open(dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
  return written;
}

/**
 * Writes `snapshot` to `file` atomically: a temporary file, fsynced, renamed over the old one, and the
 * directory fsynced, so a crash leaves either the previous snapshot or this one, never a torn file.
 * The documents go out through a buffer of 1 MiB as they are read, so saving takes no copy of the
 * whole snapshot in memory, and documents still in the file being replaced are copied from it as
 * stored, a run of them at a time (`IndexedDocuments.copyRun`).
 */
export async function writeSnapshot(file: string, snapshot: ProjectionSnapshot): Promise<void> {
  await writeFile(file, snapshot);
}

/**
 * Saves `snapshot` to `file` like `writeSnapshot`, and returns the saved snapshot, its documents read
 * from the new file: what `readSnapshot` would give, without reading back and checking an index just
 * written. Reading it back stalled a running process for about 250 ms after 1,000,000 documents.
 */
export async function saveSnapshot(file: string, snapshot: ProjectionSnapshot): Promise<ProjectionSnapshot> {
  const { collections, positions } = await writeFile(file, snapshot);
  return indexedSnapshot(new SnapshotFile(file), collections, positions);
}

/** Reads [u32 BE length][bytes] frames out of `bytes`, checking each fits. */
class Frames {
  at = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly file: string,
  ) {}

  /** Steps over the next frame and returns where its bytes start; no view of it is made. */
  skip(): number {
    const start = this.at;
    if (start + 4 > this.bytes.length) throw new SnapshotFormatError(this.file, 'truncated');
    const end = start + 4 + this.bytes.readUInt32BE(start);
    if (end > this.bytes.length) throw new SnapshotFormatError(this.file, 'truncated');
    this.at = end;
    return start + 4;
  }

  next(): Buffer {
    const start = this.skip();
    return this.bytes.subarray(start, this.at);
  }

  get done(): boolean {
    return this.at === this.bytes.length;
  }
}

/** The UTF-8 text of the frame at `at`. */
function frameText(bytes: Buffer, at: number): string {
  return bytes.toString('utf8', at + 4, at + 4 + bytes.readUInt32BE(at));
}

function parseHeader(bytes: Buffer, file: string): Header {
  const header = JSON.parse(bytes.toString('utf8')) as Header;
  for (const { name, documents } of header.collections) {
    if (!Number.isSafeInteger(documents) || documents < 0) {
      throw new SnapshotFormatError(file, `collection ${name} claims ${documents} documents`);
    }
  }
  return header;
}

/**
 * The file a version 2 or 3 snapshot's documents are read from, open until released. Reads are
 * synchronous: a store reads a document and writes its change with nothing in between, and a read
 * is of a few hundred bytes, once per document, from the page cache as a rule.
 */
class SnapshotFile {
  private fd: number | undefined;
  readonly size: number;
  /** Reads on the thread pool not finished yet: the descriptor stays open for them. */
  private reading = 0;
  private released = false;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'r');
    try {
      this.size = fstatSync(this.fd).size;
    } catch (error) {
      this.release();
      throw error;
    }
  }

  private get open(): number {
    if (this.released || this.fd === undefined) {
      throw new Error(`${this.path}: the snapshot's documents were released`);
    }
    return this.fd;
  }

  read(start: number, length: number): Buffer {
    const fd = this.open;
    const bytes = Buffer.allocUnsafe(length);
    for (let done = 0; done < length;) {
      const read = readSync(fd, bytes, done, length - done, start + done);
      if (read === 0) throw new SnapshotFormatError(this.path, 'truncated');
      done += read;
    }
    return bytes;
  }

  /** Reads `length` bytes from `position` into `target` at `offset`, on the thread pool. */
  async readInto(target: Buffer, offset: number, length: number, position: number): Promise<void> {
    for (let done = 0; done < length;) {
      const fd = this.open;
      this.reading++;
      try {
        const bytes = await new Promise<number>((resolve, reject) =>
          read(fd, target, offset + done, length - done, position + done, (error, n) =>
            error ? reject(error) : resolve(n),
          ),
        );
        if (bytes === 0) throw new SnapshotFormatError(this.path, 'truncated');
        done += bytes;
      } finally {
        this.reading--;
        if (this.released) this.close();
      }
    }
  }

  /** No read is taken after this; the file closes once the reads in progress have finished. */
  release(): void {
    this.released = true;
    this.close();
  }

  private close(): void {
    // A descriptor closed under a read in progress could be reused by another file before the read.
    if (this.reading > 0 || this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** How much a read in document order takes in at once. */
const READ_AHEAD_BYTES = 1 << 20;
/** How far past the last document read a read still counts as in order (documents skipped). */
const IN_ORDER_GAP = 64;

/**
 * A collection of a version 2 or 3 snapshot: its ids in memory, each document read when asked for. Reads in
 * document order (a search, a rebuild's comparison) take in up to `READ_AHEAD_BYTES` of following
 * documents at once, which they are stored contiguously for: one `readSync` per document was most of
 * such a scan.
 */
class IndexedDocuments implements SnapshotDocuments {
  readonly inIdOrder = true;
  private last = -1;
  /** Documents `from` to `to` (exclusive), read ahead, starting at `start` in the file. */
  private ahead: { from: number; to: number; start: number; bytes: Buffer } | undefined;

  constructor(
    private readonly file: SnapshotFile,
    private readonly collection: string,
    private readonly ids: Buffer,
    private readonly idStarts: Uint32Array,
    private readonly starts: Float64Array,
    private readonly lengths: Uint32Array,
  ) {}

  get length(): number {
    return this.idStarts.length;
  }

  id(index: number): string {
    return frameText(this.ids, this.idStarts[index]!);
  }

  bytes(index: number): Buffer {
    const stored = this.read(index);
    const bytes = stored.subarray(4);
    if (crc32(bytes) !== stored.readUInt32BE(0)) {
      throw new SnapshotFormatError(this.file.path, `checksum of ${this.collection}/${this.id(index)}`);
    }
    return bytes;
  }

  indexOf(id: string): number {
    return searchSorted(this.length, (i) => this.id(i), id);
  }

  /**
   * Writes documents `from` to `from + count` to `output` as they are stored, their ids to `ids`, and
   * their places to `index` from `at` on. The bytes are copied back to back, not document by
   * document, and their checksums go along unchecked: a damaged document still fails its read.
   * Copying each document on its own, checked, was most of a save's time once the file held
   * 1,000,000 of them.
   */
  async copyRun(
    from: number,
    count: number,
    output: ChunkedOutput,
    ids: Builder,
    index: Pick<CollectionIndex, 'idStarts' | 'starts' | 'lengths'>,
    at: number,
  ): Promise<void> {
    const to = from + count;
    const idsFrom = this.idStarts[from]!;
    const idsShift = ids.length - idsFrom;
    for (let j = from; j < to; j++) index.idStarts[at + j - from] = this.idStarts[j]! + idsShift;
    ids.append(this.ids.subarray(idsFrom, to < this.length ? this.idStarts[to] : this.ids.length));
    for (let j = from; j < to;) {
      // Documents lie back to back; one that does not (no file written here has one) starts a new copy.
      const start = this.starts[j]! - 4;
      const shift = output.position - start;
      let end: number;
      do {
        index.starts[at + j - from] = this.starts[j]! + shift;
        index.lengths[at + j - from] = this.lengths[j]!;
        end = this.starts[j]! + this.lengths[j]!;
        j++;
      } while (j < to && this.starts[j]! - 4 === end);
      await output.copy(this.file, start, end);
    }
  }

  /** Document `index` as stored, its CRC-32 before its bytes, unchecked. */
  private read(index: number): Buffer {
    const inOrder = index > this.last && index - this.last <= IN_ORDER_GAP;
    this.last = index;
    const start = this.starts[index]! - 4;
    const length = this.lengths[index]! + 4;
    const ahead = this.ahead;
    if (ahead && index >= ahead.from && index < ahead.to) {
      const at = start - ahead.start;
      return ahead.bytes.subarray(at, at + length);
    }
    this.ahead = undefined;
    if (!inOrder) return this.file.read(start, length);
    let to = index + 1;
    let end = start + length;
    while (
      to < this.length &&
      this.starts[to]! - 4 === end &&
      this.starts[to]! + this.lengths[to]! - start <= READ_AHEAD_BYTES
    ) {
      end = this.starts[to]! + this.lengths[to]!;
      to++;
    }
    const bytes = this.file.read(start, end - start);
    if (to > index + 1) this.ahead = { from: index, to, start, bytes };
    return bytes.subarray(0, length);
  }
}

function readIndexed(file: SnapshotFile): ProjectionSnapshot {
  const { path, size } = file;
  if (size < MAGIC.length + TRAILER_BYTES) throw new SnapshotFormatError(path, 'truncated');
  const trailer = file.read(size - TRAILER_BYTES, TRAILER_BYTES);
  const indexStart = Number(trailer.readBigUInt64BE(0));
  if (
    !trailer.subarray(12).equals(TRAILER_TAG) ||
    indexStart < MAGIC.length ||
    indexStart > size - TRAILER_BYTES
  ) {
    throw new SnapshotFormatError(path, 'truncated');
  }
  const index = file.read(indexStart, size - TRAILER_BYTES - indexStart);
  if (crc32(index) !== trailer.readUInt32BE(8)) throw new SnapshotFormatError(path, 'checksum');

  const frames = new Frames(index, path);
  const header = parseHeader(frames.next(), path);
  const collections: CollectionIndex[] = [];
  for (const { name, documents } of header.collections) {
    const ids = frames.next();
    const starts = frames.next();
    const lengths = frames.next();
    if (starts.length !== documents * 8 || lengths.length !== documents * 4) {
      throw new SnapshotFormatError(
        path,
        `collection ${name}: index does not match its ${documents} documents`,
      );
    }
    const idFrames = new Frames(ids, path);
    const idStarts = new Uint32Array(documents);
    for (let i = 0; i < documents; i++) idStarts[i] = idFrames.skip() - 4;
    if (!idFrames.done) throw new SnapshotFormatError(path, `collection ${name}: ids do not match`);
    // Copies: typed arrays need aligned bytes, which a frame's are not.
    const documentStarts = new Float64Array(documents);
    const documentLengths = new Uint32Array(documents);
    for (let i = 0; i < documents; i++) {
      documentStarts[i] = starts.readDoubleLE(i * 8);
      documentLengths[i] = lengths.readUInt32LE(i * 4);
      if (documentStarts[i]! < MAGIC.length + 4 || documentStarts[i]! + documentLengths[i]! > indexStart) {
        throw new SnapshotFormatError(path, `collection ${name}: a document lies outside the documents`);
      }
    }
    collections.push({ name, ids, idStarts, starts: documentStarts, lengths: documentLengths });
  }
  if (!frames.done) throw new SnapshotFormatError(path, 'trailing bytes');
  return indexedSnapshot(file, collections, header.positions);
}

function indexedSnapshot(
  file: SnapshotFile,
  collections: CollectionIndex[],
  positions: Header['positions'],
): ProjectionSnapshot {
  return {
    collections: new Map(
      collections.map((c) => [
        c.name,
        new IndexedDocuments(file, c.name, c.ids, c.idStarts, c.starts, c.lengths),
      ]),
    ),
    positions: new Map(Object.entries(positions)),
    release: () => file.release(),
  };
}

/** A collection of a version 1 snapshot: the whole file in memory, found by a map built on the first search. */
class WholeFileDocuments implements SnapshotDocuments {
  private readonly index: IdIndex;

  constructor(
    private readonly file: Buffer,
    private readonly frames: Float64Array,
  ) {
    this.index = new IdIndex(frames.length, (i) => this.id(i));
  }

  get length(): number {
    return this.frames.length;
  }

  id(index: number): string {
    return frameText(this.file, this.frames[index]!);
  }

  bytes(index: number): Buffer {
    const idAt = this.frames[index]!;
    const at = idAt + 4 + this.file.readUInt32BE(idAt);
    return this.file.subarray(at + 4, at + 4 + this.file.readUInt32BE(at));
  }

  indexOf(id: string): number {
    return this.index.indexOf(id);
  }
}

async function readWhole(path: string): Promise<ProjectionSnapshot> {
  const bytes = await readFile(path);
  const body = bytes.subarray(0, bytes.length - 4);
  if (bytes.length < MAGIC_V1.length + 8 || crc32(body) !== bytes.readUInt32BE(bytes.length - 4)) {
    throw new SnapshotFormatError(path, 'checksum');
  }
  const frames = new Frames(body, path);
  frames.at = MAGIC_V1.length;
  const header = parseHeader(frames.next(), path);
  const collections = new Map<string, SnapshotDocuments>();
  for (const { name, documents } of header.collections) {
    // Each document takes two frames of at least 4 bytes: a count the file cannot hold is damage.
    if (documents * 8 > body.length - frames.at) {
      throw new SnapshotFormatError(path, `collection ${name} claims ${documents} documents`);
    }
    const starts = new Float64Array(documents);
    for (let i = 0; i < documents; i++) {
      starts[i] = frames.skip() - 4;
      frames.skip();
    }
    collections.set(name, new WholeFileDocuments(body, starts));
  }
  if (!frames.done) throw new SnapshotFormatError(path, 'trailing bytes');
  return { collections, positions: new Map(Object.entries(header.positions)) };
}

/**
 * Reads a snapshot written by `writeSnapshot` (or by an earlier release); undefined when there is
 * none. A damaged or foreign file throws `SnapshotFormatError`; so does reading a damaged document
 * later. Release the snapshot (`release`) when no store reads from it any more.
 */
export async function readSnapshot(file: string): Promise<ProjectionSnapshot | undefined> {
  let opened: SnapshotFile;
  try {
    opened = new SnapshotFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let kept = false;
  try {
    const magic = opened.read(0, Math.min(MAGIC.length, opened.size));
    if (magic.equals(MAGIC) || magic.equals(MAGIC_V2)) {
      const snapshot = readIndexed(opened);
      kept = true;
      return snapshot;
    }
    if (magic.equals(MAGIC_V1)) return await readWhole(file);
    throw new SnapshotFormatError(file, 'unknown format');
  } finally {
    if (!kept) opened.release();
  }
}

export async function removeSnapshot(file: string): Promise<void> {
  await rm(file, { force: true });
}
