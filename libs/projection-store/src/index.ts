export * from './port.js';
export {
  MemoryProjectionStore,
  type ProjectionSnapshot,
  type SnapshotDocuments,
} from './memory-projection-store.js';
export { readSnapshot, removeSnapshot, SnapshotFormatError, writeSnapshot } from './snapshot-file.js';
