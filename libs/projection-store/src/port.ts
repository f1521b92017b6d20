/**
 * Read models. Every document has an `id`; each projection records the log positions it has applied
 * (`topic:partition` → next offset) so a restart resumes and an event applied twice changes nothing.
 * Only single-document operations: what every MongoDB-wire-compatible server supports.
 */
export interface Document {
  id: string;
}

export interface FindOptions<T> {
  sort?: { field: keyof T & string; direction: 'asc' | 'desc' };
  limit?: number;
}

export interface ProjectionCollection<T extends Document> {
  get(id: string): Promise<T | undefined>;
  put(doc: T): Promise<void>;
  delete(id: string): Promise<void>;
  /** Documents whose fields equal every field of `filter`. */
  find(filter: Partial<T>, options?: FindOptions<T>): Promise<T[]>;
  count(): Promise<number>;
  clear(): Promise<void>;
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
