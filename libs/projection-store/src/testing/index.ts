export { describeProjectionStoreContract, type ProjectionStoreContext } from './projection-store-contract.js';
export { asSecondWriter } from './second-writer.js';
