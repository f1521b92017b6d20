/**
 * One collection's documents in a projection snapshot, as structured-clone bytes (`v8.serialize`) by
 * id. Indexed, not a pair per document: a start after a million jobs restores a million documents,
 * and an object or a map entry per document was most of the restore's time and garbage.
 */
export interface SnapshotDocuments {
  readonly length: number;
  id(index: number): string;
  bytes(index: number): Buffer;
  /** The index of the document with this id, or -1. */
  indexOf(id: string): number;
}

/** The index of `id` in `ids`, read through `idAt`, which are in ascending order; or -1. */
export function searchSorted(length: number, idAt: (index: number) => string, id: string): number {
  let low = 0;
  let high = length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = idAt(middle);
    if (found === id) return middle;
    if (found < id) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
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
