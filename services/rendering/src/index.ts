export { RenderingModule } from './rendering.module.js';
export { Renderer, type RenderedImage, type RenderInputs } from './drawing/index.js';
