export * from './colour.js';
export * from './palette.js';
export * from './scene.js';
export * from './text.js';
export * from './title-layout.js';
