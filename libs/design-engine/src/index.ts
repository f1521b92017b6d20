// The public face of the engine: design → paint → encode, and the logo step for pictures drawn elsewhere.
export {
  defaultLogoPlacement,
  encode,
  Renderer,
  type Composition,
  type Plan,
  type RenderedImage,
  type RenderInputs,
} from './engine.js';
export { paintLogo } from './logo-overlay.js';
export type { Canvas } from './paint/canvas.js';
