export * from './hostile-images.js';
