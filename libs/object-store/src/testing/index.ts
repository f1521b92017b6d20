export {
  describeObjectStoreContract,
  UNSAFE_KEYS,
  type ObjectStoreContext,
} from './object-store-contract.js';
