export * from './colour.js';
export * from './design.js';
export * from './references.js';
export * from './styles.js';
export * from './templates.js';
export * from './text.js';
export * from './title-layout.js';
export * from './focus.js';
