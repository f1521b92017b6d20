// The public face of the engine: design → paint → encode, and the logo step for pictures drawn elsewhere.
export {
  defaultLogoPlacement,
  encode,
  Renderer,
  type Composition,
  type PaintOptions,
  type MissingGlyphs,
  type Plan,
  type RenderedImage,
  type RendererOptions,
  type RenderInputs,
} from './engine.js';
export { FONT_IDS, FONTS, type BundledFont, type FontId } from './fonts/catalogue.js';
export { paintLogo } from './logo-overlay.js';
export { RenderAborted } from './paint/abort.js';
export { limitPixelCaches } from './paint/caches.js';
export { SCRIPT_SAMPLES, type ScriptSample } from './script-samples.js';
export { limitCanvasBuffers, type Canvas } from './paint/canvas.js';
