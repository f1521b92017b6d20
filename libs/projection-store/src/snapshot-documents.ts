/**
 * One collection's documents in a projection snapshot, as stored bytes (`encodeDocument`: JSON text,
 * or structured-clone bytes where JSON would not give the document back) by id. Indexed, not a pair
 * per document: a start after a million jobs restores a million documents, and an object or a map
 * entry per document was most of the restore's time and garbage.
 */
export interface SnapshotDocuments {
  readonly length: number;
  /** Ids ascend with the index, as strings compare: a writer need not sort them. */
  readonly inIdOrder?: boolean;
  id(index: number): string;
  /** The document's stored bytes (`encodeDocument`). */
  bytes(index: number): Buffer;
  /**
   * `bytes`, or the JSON text they would encode, which a writer puts straight into its output
   * (`storedForm`).
   */
  stored?(index: number): string | Buffer;
  /** The index of the document with this id, or -1. */
  indexOf(id: string): number;
  /**
   * The documents from `index` on that are `restored`'s from `from` on, in the same order and
   * without a gap, or undefined when document `index` is not one of `restored`'s: a writer copies
   * such a run as it is stored.
   */
  restoredRun?(index: number): { restored: SnapshotDocuments; from: number; count: number } | undefined;
}

/** The first index in `0..length` whose id (read through `idAt`, ascending) is not below `id`. */
export function lowerBound(length: number, idAt: (index: number) => string, id: string): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (idAt(middle) < id) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The index of `id` among ids ascending in `0..length` (read through `idAt`), or -1. */
export function searchSorted(length: number, idAt: (index: number) => string, id: string): number {
  const at = lowerBound(length, idAt, id);
  return at < length && idAt(at) === id ? at : -1;
}

/** Finds ids by a map built on the first search: for documents in no particular order. */
export class IdIndex {
  private byId: Map<string, number> | undefined;

  constructor(
    private readonly length: number,
    private readonly idAt: (index: number) => string,
  ) {}

  indexOf(id: string): number {
    if (!this.byId) {
      this.byId = new Map();
      for (let i = 0; i < this.length; i++) this.byId.set(this.idAt(i), i);
    }
    return this.byId.get(id) ?? -1;
  }
}

/** Documents given as [id, bytes] pairs: what a store saves, or a collection written by hand. */
export function listedDocuments(pairs: readonly (readonly [id: string, bytes: Buffer])[]): SnapshotDocuments {
  const id = (i: number) => pairs[i]![0];
  const index = new IdIndex(pairs.length, id);
  return { length: pairs.length, id, bytes: (i) => pairs[i]![1], indexOf: (key) => index.indexOf(key) };
}

export const NO_DOCUMENTS = listedDocuments([]);

/** Every document as an [id, bytes] pair, in order. */
export function* documentEntries(documents: SnapshotDocuments): Generator<[id: string, bytes: Buffer]> {
  for (let i = 0; i < documents.length; i++) yield [documents.id(i), documents.bytes(i)];
}
