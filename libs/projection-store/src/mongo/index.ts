export {
  MongoProjectionStore,
  ProjectionStoreClosedError,
  type MongoProjectionStoreOptions,
} from './mongo-projection-store.js';
export { escapeKey, unescapeKey } from './encoding.js';
