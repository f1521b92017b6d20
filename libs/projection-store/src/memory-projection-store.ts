import { isDeepStrictEqual } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { assertId, freezeDeep } from './documents.js';
import type { Document, FindOptions, Positions, ProjectionCollection, ProjectionStore } from './port.js';

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

/**
 * A document restored from a snapshot, still in the structured-clone bytes it was saved in: decoded
 * when first read, so a restart costs the file's read, not the decoding of every document.
 */
class Serialized {
  constructor(readonly bytes: Buffer) {}
}

/** Documents of one collection as structured-clone bytes (`v8.serialize`), by id. */
export type SnapshotDocuments = [id: string, bytes: Buffer][];

/** A whole store at one instant: every collection and every projection's positions. */
export interface ProjectionSnapshot {
  collections: Map<string, SnapshotDocuments>;
  positions: Map<string, Positions>;
}

/**
 * Stored documents are frozen and handed out as they are: a change is a new document (copy on write),
 * so reads copy nothing. Copying every read and write cost more than the rest of the request path
 * once an account's ledger had a few hundred entries.
 */
class MemoryCollection<T extends Document> implements ProjectionCollection<T> {
  private readonly docs = new Map<string, T | Serialized>();

  constructor(private readonly assertOpen: () => void) {}

  private read(id: string): T | undefined {
    const stored = this.docs.get(id);
    if (!(stored instanceof Serialized)) return stored;
    const doc = freezeDeep(deserialize(stored.bytes) as T);
    this.docs.set(id, doc);
    return doc;
  }

  async get(id: string): Promise<T | undefined> {
    this.assertOpen();
    return this.read(id);
  }

  async put(doc: T): Promise<void> {
    this.assertOpen();
    assertId(doc);
    // The caller keeps its object and may go on changing it: the store keeps its own.
    this.docs.set(doc.id, freezeDeep(structuredClone(doc)));
  }

  async insert(doc: T): Promise<boolean> {
    this.assertOpen();
    assertId(doc);
    if (this.docs.has(doc.id)) return false;
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
    this.docs.set(id, freezeDeep(next));
    return next;
  }

  async delete(id: string): Promise<void> {
    this.assertOpen();
    this.docs.delete(id);
  }

  async find(filter: Partial<T>, options: FindOptions<T> = {}): Promise<T[]> {
    this.assertOpen();
    const { sort, limit } = options;
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw new RangeError('limit must be a non-negative integer');
    }
    // A restored document is decoded first, to be matched.
    let found = [...this.docs.keys()].map((id) => this.read(id)!).filter((doc) => matches(doc, filter));
    if (sort) {
      const sign = sort.direction === 'desc' ? -1 : 1;
      found.sort((a, b) => sign * compareValues(a[sort.field], b[sort.field]));
    }
    // As in MongoDB, a limit of 0 means no limit.
    if (limit) found = found.slice(0, limit);
    return found;
  }

  async count(): Promise<number> {
    this.assertOpen();
    return this.docs.size;
  }

  async clear(): Promise<void> {
    this.assertOpen();
    this.docs.clear();
  }

  snapshot(): SnapshotDocuments {
    return [...this.docs].map(([id, doc]) => [id, doc instanceof Serialized ? doc.bytes : serialize(doc)]);
  }

  restore(documents: SnapshotDocuments): void {
    this.docs.clear();
    for (const [id, bytes] of documents) this.docs.set(id, new Serialized(bytes));
  }
}

/**
 * Read models in process memory, rebuilt from the log at start. Documents go in as structured clones
 * and come out frozen, so no caller can change stored state except through `put` and `update`.
 */
export class MemoryProjectionStore implements ProjectionStore {
  private readonly collections = new Map<string, MemoryCollection<Document>>();
  private readonly savedPositions = new Map<string, Positions>();
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
    return { collections, positions };
  }

  /** Replaces everything with a snapshot's contents; projections then resume from its positions. */
  restore(snapshot: ProjectionSnapshot): void {
    this.assertOpen();
    this.collections.clear();
    for (const [name, documents] of snapshot.collections) {
      (this.collection(name) as unknown as MemoryCollection<Document>).restore(documents);
    }
    this.savedPositions.clear();
    for (const [name, saved] of snapshot.positions) this.savedPositions.set(name, { ...saved });
  }
}
