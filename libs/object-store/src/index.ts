export * from './port.js';
export { LocalObjectStore, type LocalObjectStoreOptions } from './local-object-store.js';
