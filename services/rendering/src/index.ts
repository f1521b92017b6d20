export { RenderingModule } from './rendering.module.js';
export {
  defaultLogoPlacement,
  Renderer,
  type Composition,
  type RenderedImage,
  type RenderInputs,
} from './drawing/index.js';
