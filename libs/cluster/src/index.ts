export * from './settings.js';
export * from './kafka-connection.js';
export * from './infrastructure.js';
export * from './process.js';
