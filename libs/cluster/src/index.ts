export * from './settings.js';
export * from './infrastructure.js';
export * from './process.js';
