import { randomUUID } from 'node:crypto';
import mongoose, { type mongo } from 'mongoose';
import { assertFiniteBound, assertId, freezeDeep } from '../documents.js';
import type {
  Document,
  FindOptions,
  NumericField,
  Positions,
  ProjectionCollection,
  ProjectionStore,
} from '../port.js';
import { decodeFields, encodeFields, encodeValue, escapeKey } from './encoding.js';

export interface MongoProjectionStoreOptions {
  /** `mongodb://host:port/[database][?options]`; write concern and timeouts can ride in the query. */
  uri: string;
  /** Database name (default: the one in the URI, else `thumbforge`). */
  database?: string;
  /** Prepended to every collection name, e.g. to give each test or tenant its own namespace. */
  collectionPrefix?: string;
  /** Collection holding every projection's positions (default `projection_positions`). */
  positionsCollection?: string;
  /** How long an operation waits for a reachable server before failing (default 5 s). */
  serverSelectionTimeoutMs?: number;
}

/**
 * A token changed by every write of a document: `update` replaces only the revision it read, so a
 * concurrent writer's change is never overwritten (optimistic concurrency on one document).
 */
const REVISION = '_rev';
/** Conflicting writers of one document per `update` before giving up; each retry re-reads it. */
const MAX_UPDATE_ATTEMPTS = 50;

/** Documents per collection whose last write `update` remembers (the oldest are forgotten first). */
const MAX_REMEMBERED = 10_000;

/** Indexes made for query shapes on first use, per collection; more shapes than this are served unindexed. */
const MAX_AUTO_INDEXES = 16;

export class ProjectionStoreClosedError extends Error {
  constructor() {
    super('projection store is closed');
    this.name = 'ProjectionStoreClosedError';
  }
}

interface PositionsDoc {
  _id: string;
  positions: { key: string; offset: number }[];
}

/** A document's version as this process last saw it: no document and no revision when absent. */
type Known<T> = { doc: T; revision: string | null } | { doc: undefined; revision: undefined };

/** A document written before revisions existed has none: null matches a missing field. */
function revisionOf(raw: mongo.Document): string | null {
  return (raw[REVISION] as string | undefined) ?? null;
}

function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown }).code === 11000;
}

function assertPositions(positions: Positions): void {
  for (const [key, offset] of Object.entries(positions)) {
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new RangeError(`position ${key} must be a non-negative integer, not ${offset}`);
    }
  }
}

class MongoCollection<T extends Document> implements ProjectionCollection<T> {
  private readonly indexed = new Map<string, Promise<void>>();
  /**
   * Per id, the version this process last wrote (or, while `cacheOwnWrites` is on, read), with its
   * revision; `undefined` for a document known to be absent. The next update changes it and replaces
   * it conditionally without reading it first. A projection's one writer updates the same documents
   * event after event, so this saves a round trip per event; when another writer changed the
   * document meanwhile, the revision no longer matches and the update reads it as before.
   */
  private readonly written = new Map<string, Known<T>>();
  /** Whether `get` may answer from `written` (`cacheOwnWrites`). */
  private ownWrites = false;

  constructor(
    private readonly native: () => mongo.Collection<mongo.Document>,
    private readonly name: string,
  ) {}

  cacheOwnWrites(on: boolean): void {
    this.ownWrites = on;
    this.written.clear();
  }

  expectNew(id: string): void {
    if (this.ownWrites && !this.written.has(id)) this.keep(id, { doc: undefined, revision: undefined });
  }

  forget(id: string): void {
    this.written.delete(id);
  }

  async get(id: string): Promise<T | undefined> {
    if (this.ownWrites) {
      const known = this.written.get(id);
      if (known) return known.doc;
    }
    const found = await this.native().findOne({ _id: id as never });
    // A write of this id that ended while the read was on its way is newer than what the read
    // found: kept instead, the read would hide it from every later `get` (a use case reading a
    // document while the projection writes it).
    const keep = this.ownWrites && !this.written.has(id);
    if (!found) {
      if (keep) this.keep(id, { doc: undefined, revision: undefined });
      return undefined;
    }
    const doc = this.decode(found);
    if (keep) this.keep(id, { doc: freezeDeep(doc), revision: revisionOf(found) });
    return doc;
  }

  async put(doc: T): Promise<void> {
    assertId(doc);
    this.written.delete(doc.id);
    const fields = this.encode(doc);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.native().replaceOne({ _id: doc.id as never }, fields, { upsert: true });
        this.remember(doc, fields);
        return;
      } catch (error) {
        // Two upserts of a new id race to insert it; the loser finds it inserted and replaces it.
        if (!isDuplicateKey(error) || attempt >= 3) throw error;
      }
    }
  }

  async insert(doc: T): Promise<boolean> {
    assertId(doc);
    this.written.delete(doc.id);
    try {
      const fields = this.encode(doc);
      await this.native().insertOne({ _id: doc.id as never, ...fields });
      this.remember(doc, fields);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async update(id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    let remembered = this.written.get(id);
    for (let attempt = 1; attempt <= MAX_UPDATE_ATTEMPTS; attempt++) {
      let current: T | undefined;
      let revision: string | null | undefined;
      if (remembered) {
        ({ doc: current, revision } = remembered);
      } else {
        const raw = await this.native().findOne({ _id: id as never });
        current = raw ? this.decode(raw) : undefined;
        revision = raw ? revisionOf(raw) : undefined;
      }
      const next = change(current);
      if (next === undefined || next === current) {
        // No change is an answer only about the stored version: ask again on a fresh read, unless
        // this process is the only writer, whose last version is the stored one.
        if (!remembered || this.ownWrites) return current;
        remembered = undefined;
        continue;
      }
      remembered = undefined;
      assertId(next);
      if (next.id !== id) throw new TypeError(`update of ${id} returned a document with id ${next.id}`);
      const fields = this.encode(next);
      if (revision !== undefined) {
        // Conditional even for a lease holder: one frozen past its lease wakes up still believing it
        // is the only writer, and must find the next holder's versions rather than overwrite them.
        const filter = { _id: id, [REVISION]: revision };
        const { matchedCount } = await this.native().replaceOne(filter as never, fields);
        if (matchedCount === 1) return this.remember(next, fields);
      } else {
        try {
          await this.native().insertOne({ _id: id as never, ...fields });
          return this.remember(next, fields);
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
      }
      this.written.delete(id);
    }
    throw new Error(`update of ${this.name}/${id} conflicted ${MAX_UPDATE_ATTEMPTS} times in a row`);
  }

  /**
   * Keeps a frozen copy, as the memory store does: `get` and `update` hand remembered versions out
   * without copying them, and a caller's later change to what it wrote must not reach them.
   */
  private remember(doc: T, fields: Record<string, unknown>): T {
    this.keep(doc.id, { revision: fields[REVISION] as string, doc: freezeDeep(structuredClone(doc)) });
    return doc;
  }

  private keep(id: string, known: Known<T>): void {
    this.written.delete(id);
    this.written.set(id, known);
    if (this.written.size > MAX_REMEMBERED) this.written.delete(this.written.keys().next().value!);
  }

  async delete(id: string): Promise<void> {
    this.written.delete(id);
    await this.native().deleteOne({ _id: id as never });
    if (this.ownWrites) this.keep(id, { doc: undefined, revision: undefined });
  }

  async find(filter: Partial<T>, options: FindOptions<T> = {}): Promise<T[]> {
    const { sort, limit } = options;
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw new RangeError('limit must be a non-negative integer');
    }
    const query: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(filter)) {
      // An undefined filter value is no constraint (the driver's ignoreUndefined).
      if (value === undefined) continue;
      query[field === 'id' ? '_id' : escapeKey(field)] = encodeValue(value, field);
    }
    const order: Record<string, 1 | -1> = {};
    if (sort) order[escapeKey(sort.field)] = sort.direction === 'desc' ? -1 : 1;
    await this.ensureIndex(Object.keys(query), Object.keys(order)[0], order);
    // _id breaks ties, so equal sort keys come back in a stable order.
    let cursor = this.native()
      .find(query)
      .sort({ ...order, _id: 1 });
    if (limit) cursor = cursor.limit(limit);
    return (await cursor.toArray()).map((raw) => this.decode(raw));
  }

  async deleteBelow(field: NumericField<T>, bound: number): Promise<number> {
    assertFiniteBound(bound);
    // What this process remembers may include the documents deleted.
    this.written.clear();
    const { deletedCount } = await this.native().deleteMany({ [escapeKey(field)]: { $lt: bound } });
    return deletedCount;
  }

  async count(): Promise<number> {
    return this.native().countDocuments({});
  }

  async clear(): Promise<void> {
    this.written.clear();
    await this.native().deleteMany({});
  }

  private encode(doc: T): Record<string, unknown> {
    const fields = encodeFields(doc as unknown as Record<string, unknown>, this.name);
    return { ...fields, [REVISION]: randomUUID() };
  }

  private decode(raw: mongo.Document): T {
    const { _id: _ignored, [REVISION]: _revision, ...fields } = raw;
    return decodeFields(fields) as T;
  }

  /**
   * Equality fields then the sort field: the index a query shape needs. Made once per shape and
   * process; a server that cannot build it still answers the query, unindexed.
   */
  private ensureIndex(fields: string[], sortField: string | undefined, order: Record<string, 1 | -1>) {
    const keys = fields.filter((f) => f !== '_id').sort();
    if (keys.length === 0 && !sortField) return;
    const spec: Record<string, 1 | -1> = {};
    for (const key of keys) spec[key] = 1;
    if (sortField && !(sortField in spec)) spec[sortField] = order[sortField];
    const shape = JSON.stringify(spec);
    let made = this.indexed.get(shape);
    if (!made) {
      if (this.indexed.size >= MAX_AUTO_INDEXES) return;
      made = this.native()
        .createIndex(spec)
        .then(
          () => undefined,
          () => undefined,
        );
      this.indexed.set(shape, made);
    }
    return made;
  }
}

/**
 * Read models in MongoDB through mongoose's connection (and the driver it carries): one collection per
 * projection collection, `_id` = the document id, fields stored as they are (escaped only where the
 * wire protocol forbids them, see `encoding.ts`), positions in their own collection. Every operation
 * touches one document or runs one query: no multi-document transactions and no change streams, so
 * any MongoDB-wire-compatible server (FerretDB included) serves it.
 */
export class MongoProjectionStore implements ProjectionStore {
  private readonly connection: mongoose.Connection;
  private readonly collections = new Map<string, MongoCollection<Document>>();
  private state: 'new' | 'open' | 'closed' = 'new';

  constructor(private readonly options: MongoProjectionStoreOptions) {
    if (!/^mongodb(\+srv)?:\/\//.test(options.uri)) {
      throw new TypeError(`uri must be a mongodb:// URL, not ${JSON.stringify(options.uri)}`);
    }
    this.connection = mongoose.createConnection();
  }

  /** Connects; resolves once a server answered. */
  async open(): Promise<void> {
    if (this.state !== 'new') throw new Error('MongoProjectionStore.open called twice');
    const fromUri = new URL(this.options.uri.replace(/^mongodb(\+srv)?:/, 'http:')).pathname.slice(1);
    await this.connection.openUri(this.options.uri, {
      dbName: this.options.database ?? (fromUri || 'thumbforge'),
      serverSelectionTimeoutMS: this.options.serverSelectionTimeoutMs ?? 5_000,
      // Commands fail at once while disconnected instead of queueing behind the driver.
      bufferCommands: false,
      autoIndex: false,
      autoCreate: false,
      promoteBuffers: true,
      ignoreUndefined: true,
    });
    this.state = 'open';
  }

  collection<T extends Document>(name: string): ProjectionCollection<T> {
    if (typeof name !== 'string' || name === '') throw new TypeError('a collection needs a name');
    let collection = this.collections.get(name);
    if (!collection) {
      const fullName = `${this.options.collectionPrefix ?? ''}${name}`;
      collection = new MongoCollection<Document>(() => this.native(fullName), name);
      this.collections.set(name, collection);
    }
    return collection as unknown as ProjectionCollection<T>;
  }

  async positions(projection: string): Promise<Positions> {
    const found = await this.positionsCollection().findOne({ _id: projection });
    return Object.fromEntries((found?.positions ?? []).map(({ key, offset }) => [key, offset]));
  }

  async savePositions(projection: string, positions: Positions): Promise<void> {
    assertPositions(positions);
    const entries = Object.entries(positions).map(([key, offset]) => ({ key, offset }));
    for (let attempt = 1; ; attempt++) {
      try {
        await this.positionsCollection().replaceOne(
          { _id: projection },
          { positions: entries },
          { upsert: true },
        );
        return;
      } catch (error) {
        if (!isDuplicateKey(error) || attempt >= 3) throw error;
      }
    }
  }

  async ping(): Promise<void> {
    await this.db().command({ ping: 1 });
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    if (wasOpen) await this.connection.close();
  }

  private db(): mongo.Db {
    if (this.state === 'closed') throw new ProjectionStoreClosedError();
    if (this.state === 'new' || !this.connection.db) {
      throw new Error('MongoProjectionStore is not open: call open() first');
    }
    return this.connection.db;
  }

  private native(name: string): mongo.Collection<mongo.Document> {
    return this.db().collection(name);
  }

  private positionsCollection(): mongo.Collection<PositionsDoc> {
    const name = `${this.options.collectionPrefix ?? ''}${this.options.positionsCollection ?? 'projection_positions'}`;
    return this.db().collection<PositionsDoc>(name);
  }
}
