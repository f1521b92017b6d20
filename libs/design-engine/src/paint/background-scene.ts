import type { BackgroundKind, Design, PaletteSpec, Template, WeightedColour } from '../layout/index.js';

/** What a background is drawn from: the canvas, the style's kind and palette, the template, a seeded random. */
export interface Scene {
  W: number;
  H: number;
  kind: BackgroundKind;
  palette: PaletteSpec;
  template: Template;
  light: boolean;
  random: () => number;
  /** A reference set's colours by share, for the mirrored scene. */
  mirror: WeightedColour[];
  /** Centre of the title box and of the decoration. */
  title: { x: number; y: number };
  focus: { x: number; y: number };
  unit: number;
}

export function sceneOf(design: Design, mirror: WeightedColour[]): Scene {
  const { width: W, height: H } = design.canvas;
  const box = design.template.titleBox;
  return {
    W,
    H,
    kind: design.background.kind,
    palette: design.palette,
    template: design.template,
    light: design.style.light,
    random: random(design.background.variant * 7919 + 17),
    mirror,
    title: { x: box.x + box.width / 2, y: box.y + box.height / 2 },
    focus: design.template.focus,
    unit: Math.min(W, H),
  };
}

/** mulberry32: the same seed always gives the same shapes. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const n = (v: number) => Math.round(v * 10) / 10;
