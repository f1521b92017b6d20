export * from './renderer.js';
