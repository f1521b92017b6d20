export * from './infrastructure.js';
