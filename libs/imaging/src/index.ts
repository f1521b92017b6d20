export * from './data-url.js';
export * from './encode.js';
export * from './fonts.js';
export * from './libvips.js';
export * from './markup.js';
export * from './pixel-budget.js';
export * from './placeholder.js';
