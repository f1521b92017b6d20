export * from './fixtures.js';
export * from './sheet.js';
export * from './showcase.js';
