/**
 * Read models. Every document has an `id`; each projection records the log positions it has applied
 * (`topic:partition` → next offset) so a restart resumes and an event applied twice changes nothing.
 * Writes are single-document operations, which every MongoDB-wire-compatible server makes atomic;
 * `clear` and `deleteBelow` remove many at once, and nothing relies on them being one step.
 *
 * Documents handed out (by `get`, `find`, `update`, and to `update`'s `change`) are read-only: a
 * change is a new document given to `put` or returned from `change`. The memory store hands out its
 * stored documents frozen, without a copy; a store that copies on every read may do so.
 */
export interface Document {
  id: string;
}

/** The fields of `T` that hold numbers. */
export type NumericField<T> = { [K in keyof T & string]: T[K] extends number ? K : never }[keyof T & string];

export interface FindOptions<T> {
  sort?: { field: keyof T & string; direction: 'asc' | 'desc' };
  limit?: number;
}

export interface ProjectionCollection<T extends Document> {
  get(id: string): Promise<T | undefined>;
  put(doc: T): Promise<void>;
  /**
   * Creates the document unless one with its id exists, and answers whether it did. Atomic on every
   * MongoDB-wire server (ids are unique), so concurrent writers can claim ids with it.
   */
  insert(doc: T): Promise<boolean>;
  /**
   * Read-modify-write of one document: `change` gets the current document and returns the next one,
   * or the current one (or undefined) to leave it; resolves to the document as stored afterwards.
   * Where the server replaces conditionally and atomically (MongoDB), a write that raced another
   * writer's is retried on the fresh document, so `change` must depend on nothing but its argument.
   * FerretDB does not make conditional writes atomic, so projections keep one writer at a time (see
   * `keepProjection`) rather than rely on this.
   */
  update(id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined>;
  delete(id: string): Promise<void>;
  /** Documents whose fields equal every field of `filter`. */
  find(filter: Partial<T>, options?: FindOptions<T>): Promise<T[]>;
  /**
   * Deletes every document whose `field`, a finite number, is below `bound`; answers how many went.
   * Housekeeping of documents nothing reads any more (one server command, not one step: a document
   * written meanwhile may stay), never a projection's fold.
   */
  deleteBelow(field: NumericField<T>, bound: number): Promise<number>;
  count(): Promise<number>;
  clear(): Promise<void>;
  /**
   * Tells a store that keeps its documents elsewhere (MongoDB) whether this process is, for now, the
   * collection's only writer. While it is, `get` answers from what this process last wrote or read
   * instead of asking the server; turned on or off, it forgets all of that. The projection's writer
   * turns it on when it takes the lease and off when it loses it.
   */
  cacheOwnWrites?(on: boolean): void;
  /**
   * Tells a store that caches its own writes (`cacheOwnWrites`) that no document has this id yet: it
   * was just minted at random. While the cache is on, the first `get` or `update` of it then skips
   * the read. Nothing changes otherwise, and a document that exists after all (a writer frozen past
   * its lease wrote it) makes the update read it and retry, as a stale cached version does.
   */
  expectNew?(id: string): void;
  /**
   * Drops what a store that caches its own writes remembers of one document: the next `get` asks the
   * server. For a writer that finds another writer (one frozen past its lease, or the next holder)
   * applied a fact first: what this process read of the fact's other documents may predate it.
   */
  forget?(id: string): void;
}

export type Positions = Record<string, number>;

export interface ProjectionStore {
  collection<T extends Document>(name: string): ProjectionCollection<T>;
  positions(projection: string): Promise<Positions>;
  savePositions(projection: string, positions: Positions): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const PROJECTION_STORE = Symbol.for('thumbforge.ProjectionStore');
