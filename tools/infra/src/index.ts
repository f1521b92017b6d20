export * from './infrastructure.js';
export * from './refuse-connections.js';
