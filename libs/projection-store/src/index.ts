export * from './port.js';
export { decodeDocument, encodeDocument } from './documents.js';
export { MemoryProjectionStore, type ProjectionSnapshot } from './memory-projection-store.js';
export { documentEntries, listedDocuments, type SnapshotDocuments } from './snapshot-documents.js';
export {
  readSnapshot,
  removeSnapshot,
  saveSnapshot,
  SnapshotFormatError,
  writeSnapshot,
} from './snapshot-file.js';
