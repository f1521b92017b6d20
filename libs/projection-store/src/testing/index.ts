export { describeProjectionStoreContract, type ProjectionStoreContext } from './projection-store-contract.js';
