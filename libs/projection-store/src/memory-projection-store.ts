import { isDeepStrictEqual } from 'node:util';
import {
  assertFiniteBound,
  assertId,
  decodeDocument,
  freezeDeep,
  storedBytes,
  storedForm,
} from './documents.js';
import type {
  Document,
  FindOptions,
  NumericField,
  Positions,
  ProjectionCollection,
  ProjectionStore,
} from './port.js';
import {
  IdIndex,
  lowerBound,
  NO_DOCUMENTS,
  searchSorted,
  type SnapshotDocuments,
} from './snapshot-documents.js';

/** Missing and null sort first; otherwise numbers, strings and booleans compare as themselves. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return b === undefined || b === null ? 0 : -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === typeof b && (typeof a === 'number' || typeof a === 'string' || typeof a === 'boolean')) {
    return (a as number) < (b as number) ? -1 : 1;
  }
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function matches<T extends Document>(doc: T, filter: Partial<T>): boolean {
  for (const [field, expected] of Object.entries(filter)) {
    // An undefined filter value is no constraint, as with the MongoDB driver's ignoreUndefined.
    if (expected === undefined) continue;
    if (!isDeepStrictEqual((doc as Record<string, unknown>)[field], expected)) return false;
  }
  return true;
}

/** A whole store at one instant: every collection and every projection's positions. */
export interface ProjectionSnapshot {
  collections: Map<string, SnapshotDocuments>;
  positions: Map<string, Positions>;
  /** Lets go of what the documents are read from (a snapshot file); none can be read after. */
  release?(): void;
}

/**
 * A collection's documents at one instant, in id order when its restored ones are, read as they are
 * written out: a document in memory is serialized then, and runs of restored ones are copied from
 * their snapshot file as stored (`restoredRun`). Both are as they were at the instant (stored
 * documents are frozen, and a change replaces them), so taking the snapshot copies nothing; the store
 * must not close or restore another snapshot before this one is written. Reading every restored
 * document into a list at the instant was most of a stop's save after a restart.
 */
class CollectionSnapshot implements SnapshotDocuments {
  readonly inIdOrder: boolean;
  /** Per document, in order: a restored document's index, or -1 - its index in `docs`. */
  readonly order: Int32Array;
  private readonly byId: IdIndex;

  constructor(
    readonly docs: Document[],
    private readonly restored: SnapshotDocuments,
    /** The restored documents not yet taken, by index, ascending. */
    left: Uint32Array,
  ) {
    this.order = new Int32Array(docs.length + left.length);
    this.inIdOrder = restored.inIdOrder === true || left.length === 0;
    if (!this.inIdOrder) {
      docs.forEach((_, k) => (this.order[k] = -1 - k));
      this.order.set(left, docs.length);
    } else {
      docs.sort((a, b) => (a.id < b.id ? -1 : 1));
      let r = 0;
      let o = 0;
      docs.forEach((doc, k) => {
        const before = r + lowerBound(left.length - r, (j) => restored.id(left[r + j]!), doc.id);
        while (r < before) this.order[o++] = left[r++]!;
        this.order[o++] = -1 - k;
      });
      while (r < left.length) this.order[o++] = left[r++]!;
    }
    this.byId = new IdIndex(this.order.length, (i) => this.id(i));
  }

  get length(): number {
    return this.order.length;
  }

  id(index: number): string {
    const at = this.order[index]!;
    return at < 0 ? this.docs[-1 - at]!.id : this.restored.id(at);
  }

  bytes(index: number): Buffer {
    return storedBytes(this.stored(index));
  }

  stored(index: number): string | Buffer {
    const at = this.order[index]!;
    return at < 0 ? storedForm(this.docs[-1 - at]!) : this.restored.bytes(at);
  }

  restoredRun(index: number): { restored: SnapshotDocuments; from: number; count: number } | undefined {
    const at = this.order[index]!;
    if (at < 0) return undefined;
    let end = index + 1;
    while (end < this.order.length && this.order[end] === at + (end - index)) end++;
    return { restored: this.restored, from: at, count: end - index };
  }

  indexOf(id: string): number {
    return this.inIdOrder ? searchSorted(this.length, (i) => this.id(i), id) : this.byId.indexOf(id);
  }
}

/**
 * Stored documents are frozen and handed out as they are: a change is a new document (copy on write),
 * so reads copy nothing. Copying every read and write cost more than the rest of the request path
 * once an account's ledger had a few hundred entries.
 */
class MemoryCollection<T extends Document> implements ProjectionCollection<T> {
  /** Documents written, or read from `restored`, since the last restore. */
  private readonly docs = new Map<string, T>();
  /**
   * The snapshot's documents, left in its bytes and found by id there: a restart costs the file's
   * read, not a map entry and a decode per document. A document leaves it (`taken`) when it is first
   * read, written or deleted; from then on `docs` alone answers for it.
   */
  private restored: SnapshotDocuments = NO_DOCUMENTS;
  private taken = new Uint8Array(0);
  private restoredLeft = 0;

  constructor(private readonly assertOpen: () => void) {}

  /** The index of `id` among the restored documents not yet taken, or -1. */
  private restoredIndex(id: string): number {
    if (this.restoredLeft === 0) return -1;
    const index = this.restored.indexOf(id);
    return index >= 0 && this.taken[index] === 0 ? index : -1;
  }

  private take(index: number): void {
    this.taken[index] = 1;
    this.restoredLeft--;
  }

  private decode(index: number): T {
    return freezeDeep(decodeDocument(this.restored.bytes(index)) as T);
  }

  /** Moves restored document `index` into `docs`, decoded. */
  private load(index: number): T {
    const doc = this.decode(index);
    this.take(index);
    this.docs.set(doc.id, doc);
    return doc;
  }

  private read(id: string): T | undefined {
    const doc = this.docs.get(id);
    if (doc !== undefined) return doc;
    const index = this.restoredIndex(id);
    return index < 0 ? undefined : this.load(index);
  }

  /** Stores `doc` under its id; a restored document of that id is replaced and never read. */
  private store(doc: T): void {
    if (!this.docs.has(doc.id)) {
      const index = this.restoredIndex(doc.id);
      if (index >= 0) this.take(index);
    }
    this.docs.set(doc.id, doc);
  }

  async get(id: string): Promise<T | undefined> {
    this.assertOpen();
    return this.read(id);
  }

  async put(doc: T): Promise<void> {
    this.assertOpen();
    assertId(doc);
    // The caller keeps its object and may go on changing it: the store keeps its own.
    this.store(freezeDeep(structuredClone(doc)));
  }

  async insert(doc: T): Promise<boolean> {
    this.assertOpen();
    assertId(doc);
    if (this.docs.has(doc.id) || this.restoredIndex(doc.id) >= 0) return false;
    this.docs.set(doc.id, freezeDeep(structuredClone(doc)));
    return true;
  }

  async update(id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    this.assertOpen();
    const current = this.read(id);
    const next = change(current);
    if (next === undefined || next === current) return current;
    assertId(next);
    if (next.id !== id) throw new TypeError(`update of ${id} returned a document with id ${next.id}`);
    // Synchronous from read to write: nothing can come in between in one process.
    this.store(freezeDeep(next));
    return next;
  }

  async delete(id: string): Promise<void> {
    this.assertOpen();
    const index = this.restoredIndex(id);
    if (index >= 0) this.take(index);
    this.docs.delete(id);
  }

  async find(filter: Partial<T>, options: FindOptions<T> = {}): Promise<T[]> {
    this.assertOpen();
    const { sort, limit } = options;
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw new RangeError('limit must be a non-negative integer');
    }
    let found = [...this.docs.values()].filter((doc) => matches(doc, filter));
    // Restored documents are decoded to be matched, and left where they are: a search over a
    // collection does not make all of it resident.
    for (let i = 0; this.restoredLeft > 0 && i < this.restored.length; i++) {
      if (this.taken[i] !== 0) continue;
      const doc = this.decode(i);
      if (matches(doc, filter)) found.push(doc);
    }
    if (sort) {
      const sign = sort.direction === 'desc' ? -1 : 1;
      found.sort((a, b) => sign * compareValues(a[sort.field], b[sort.field]));
    }
    // As in MongoDB, a limit of 0 means no limit.
    if (limit) found = found.slice(0, limit);
    return found;
  }

  async deleteBelow(field: NumericField<T>, bound: number): Promise<number> {
    this.assertOpen();
    assertFiniteBound(bound);
    // `find` already reads restored documents without making them resident.
    const below = (await this.find({})).filter((doc) => {
      const value = doc[field];
      return typeof value === 'number' && value < bound;
    });
    for (const { id } of below) await this.delete(id);
    return below.length;
  }

  async count(): Promise<number> {
    this.assertOpen();
    return this.docs.size + this.restoredLeft;
  }

  async clear(): Promise<void> {
    this.assertOpen();
    this.docs.clear();
    this.restore(NO_DOCUMENTS);
  }

  /** Documents held decoded in memory: written, or read from the snapshot, since the last one. */
  get resident(): number {
    return this.docs.size;
  }

  snapshot(): CollectionSnapshot {
    const left = new Uint32Array(this.restoredLeft);
    for (let i = 0, k = 0; k < left.length; i++) if (this.taken[i] === 0) left[k++] = i;
    return new CollectionSnapshot([...this.docs.values()], this.restored, left);
  }

  /**
   * Reads from `saved` (the documents of `cut`, a snapshot of this collection since written and read
   * back, in the same order) every document unchanged since the cut: those held in memory leave it.
   * What was written, deleted or read into memory since stays as it is now. After a clear since the
   * cut nothing is unchanged: its documents are gone from memory, and its restored ones beyond `taken`.
   */
  adopt(cut: CollectionSnapshot, saved: SnapshotDocuments): void {
    const taken = new Uint8Array(saved.length);
    let left = saved.length;
    for (let i = 0; i < cut.length; i++) {
      const at = cut.order[i]!;
      const doc = at < 0 ? cut.docs[-1 - at]! : undefined;
      // A change replaces the stored object, so the same object is the same document.
      if (doc ? this.docs.get(doc.id) === doc : this.taken[at] === 0) {
        if (doc) this.docs.delete(doc.id);
      } else {
        taken[i] = 1;
        left--;
      }
    }
    this.restored = saved;
    this.taken = taken;
    this.restoredLeft = left;
  }

  restore(documents: SnapshotDocuments): void {
    this.docs.clear();
    this.restored = documents;
    this.taken = new Uint8Array(documents.length);
    this.restoredLeft = documents.length;
  }
}

/**
 * Read models in process memory, rebuilt from the log at start. Documents go in as structured clones
 * and come out frozen, so no caller can change stored state except through `put` and `update`.
 */
export class MemoryProjectionStore implements ProjectionStore {
  private readonly collections = new Map<string, MemoryCollection<Document>>();
  private readonly savedPositions = new Map<string, Positions>();
  /** The snapshot restored (or adopted) last, released when the store closes or restores another. */
  private restored: ProjectionSnapshot | undefined;
  /** Each snapshot taken, with the one restored at the time: `adopt` takes only a current one. */
  private readonly cuts = new WeakMap<ProjectionSnapshot, ProjectionSnapshot | undefined>();
  private closed = false;
  private readonly assertOpen = (): void => {
    if (this.closed) throw new Error('projection store is closed');
  };

  collection<T extends Document>(name: string): ProjectionCollection<T> {
    if (typeof name !== 'string' || name === '') throw new TypeError('a collection needs a name');
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new MemoryCollection<Document>(this.assertOpen);
      this.collections.set(name, collection);
    }
    return collection as unknown as ProjectionCollection<T>;
  }

  async positions(projection: string): Promise<Positions> {
    this.assertOpen();
    return { ...this.savedPositions.get(projection) };
  }

  async savePositions(projection: string, positions: Positions): Promise<void> {
    this.assertOpen();
    for (const [key, offset] of Object.entries(positions)) {
      if (!Number.isSafeInteger(offset) || offset < 0) {
        throw new RangeError(`position ${key} must be a non-negative integer`);
      }
    }
    this.savedPositions.set(projection, { ...positions });
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.restored?.release?.();
    this.restored = undefined;
  }

  /**
   * Every collection and every projection's positions at this instant. Synchronous, so no write can
   * come in between: each projection's documents are at least as far as its positions, as a restart
   * from saved positions expects (an event applied again changes nothing).
   */
  snapshot(): ProjectionSnapshot {
    const collections = new Map<string, SnapshotDocuments>();
    for (const [name, collection] of this.collections) collections.set(name, collection.snapshot());
    const positions = new Map<string, Positions>();
    for (const [name, saved] of this.savedPositions) positions.set(name, { ...saved });
    const cut = { collections, positions };
    this.cuts.set(cut, this.restored);
    return cut;
  }

  /** Documents held decoded in memory, over all collections: what `adopt` lets go of. */
  residentDocuments(): number {
    let resident = 0;
    for (const collection of this.collections.values()) resident += collection.resident;
    return resident;
  }

  /**
   * After `cut`, a `snapshot()` of this store, was saved to a file as `saved` (`saveSnapshot`): every
   * document unchanged since the cut is read from `saved` from now on, so memory holds only what
   * changed since, and the snapshot read before is released. Synchronous, so nothing changes while it
   * compares. False, releasing `saved`, when the store closed or restored another snapshot meanwhile.
   */
  adopt(cut: ProjectionSnapshot, saved: ProjectionSnapshot): boolean {
    if (this.closed || !this.cuts.has(cut) || this.cuts.get(cut) !== this.restored) {
      saved.release?.();
      return false;
    }
    // Every collection is checked before any changes: a file that does not match its cut is left whole.
    for (const [name, documents] of cut.collections) {
      const adopted = saved.collections.get(name)?.length;
      if (adopted !== documents.length) {
        saved.release?.();
        throw new Error(
          `the saved snapshot holds ${adopted ?? 'no'} documents of ${name}, its cut ${documents.length}`,
        );
      }
    }
    for (const [name, documents] of cut.collections) {
      this.collections.get(name)!.adopt(documents as CollectionSnapshot, saved.collections.get(name)!);
    }
    const before = this.restored;
    this.restored = saved;
    before?.release?.();
    return true;
  }

  /**
   * Replaces everything with a snapshot's contents; projections then resume from its positions. The
   * store reads the snapshot's documents as they are asked for, and releases it when it closes.
   */
  restore(snapshot: ProjectionSnapshot): void {
    this.assertOpen();
    if (this.restored !== snapshot) this.restored?.release?.();
    this.restored = snapshot;
    this.collections.clear();
    for (const [name, documents] of snapshot.collections) {
      (this.collection(name) as unknown as MemoryCollection<Document>).restore(documents);
    }
    this.savedPositions.clear();
    for (const [name, saved] of snapshot.positions) this.savedPositions.set(name, { ...saved });
  }
}
