export { RenderingModule } from './rendering.module.js';
