export * from './port.js';
export { MemoryProjectionStore } from './memory-projection-store.js';
