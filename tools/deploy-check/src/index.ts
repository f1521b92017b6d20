export * from './helm.js';
export * from './manifests.js';
export * from './image.js';
