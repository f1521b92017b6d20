export {
  ObjectStoreUnavailableError,
  S3ObjectStore,
  type BreakerState,
  type S3ObjectStoreOptions,
} from './s3-object-store.js';
