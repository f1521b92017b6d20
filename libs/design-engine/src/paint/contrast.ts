import { inkFor, luminance, mix, parseHex, type Design, type Rect, type Rgb } from '../layout/index.js';
import { luminanceAt, paintSoftRect, type Canvas } from './canvas.js';
import type { TitleColours } from './title.js';

/** WCAG AA for text is 4.5:1; the margin absorbs anti-aliasing and lossy encoding. */
export const MIN_CONTRAST = 4.5;
const TARGET_CONTRAST = 4.8;

export interface LuminanceSpan {
  darkest: number;
  brightest: number;
  /** The pixels at either end of the span. */
  darkestPixel: Rgb;
  brightestPixel: Rgb;
}

/** The luminance span of the canvas over some areas (every other pixel, every other row). */
export function luminanceSpan(canvas: Canvas, areas: Rect[]): LuminanceSpan | null {
  let darkest = Infinity;
  let brightest = -Infinity;
  let darkAt = 0;
  let brightAt = 0;
  for (const area of areas) {
    const x0 = Math.max(0, Math.floor(area.x));
    const y0 = Math.max(0, Math.floor(area.y));
    const x1 = Math.min(canvas.width, Math.ceil(area.x + area.width));
    const y1 = Math.min(canvas.height, Math.ceil(area.y + area.height));
    for (let y = y0; y < y1; y += 2) {
      for (let x = x0; x < x1; x += 2) {
        const l = luminanceAt(canvas, x, y);
        if (l < darkest) {
          darkest = l;
          darkAt = (y * canvas.width + x) * 3;
        }
        if (l > brightest) {
          brightest = l;
          brightAt = (y * canvas.width + x) * 3;
        }
      }
    }
  }
  if (darkest === Infinity) return null;
  const pixel = (o: number) => ({ r: canvas.data[o]!, g: canvas.data[o + 1]!, b: canvas.data[o + 2]! });
  return { darkest, brightest, darkestPixel: pixel(darkAt), brightestPixel: pixel(brightAt) };
}

interface Inks {
  ink: Rgb;
  emphasisInk: Rgb;
}

function inksFor(preferred: Inks, darkest: number, brightest: number, emphasised: boolean): Inks | null {
  const ink = inkFor(preferred.ink, darkest, brightest, TARGET_CONTRAST);
  if (!ink) return null;
  if (!emphasised) return { ink, emphasisInk: preferred.emphasisInk };
  const emphasisInk =
    inkFor(preferred.emphasisInk, darkest, brightest, TARGET_CONTRAST) ??
    inkFor(ink, darkest, brightest, TARGET_CONTRAST);
  return emphasisInk ? { ink, emphasisInk } : null;
}

/**
 * The title's colours, checked against the pixels it will sit on: the palette's colours when they
 * reach the target contrast over the whole backdrop behind the text, else the nearest shades that
 * do; when the backdrop spans too much (a photo edge, a bright decoration) a soft scrim in the base
 * colour is laid behind the title first, just strong enough for the text to read.
 */
export function titleColours(
  canvas: Canvas,
  design: Design,
  areas: { plain: Rect[]; emphasis: Rect[] },
): TitleColours {
  const p = design.palette;
  const preferred = { ink: parseHex(p.ink), emphasisInk: parseHex(p.emphasisInk) };
  const emphasised = areas.emphasis.length > 0;
  const all = [...areas.plain, ...areas.emphasis];
  let inks: Inks = preferred;
  for (let attempt = 0; attempt < 3 && all.length > 0; attempt++) {
    const span = luminanceSpan(canvas, all);
    if (!span) break;
    const found = inksFor(preferred, span.darkest, span.brightest, emphasised);
    if (found) {
      inks = found;
      break;
    }
    // The weakest scrim that brings both ends of the span within reach (checked again after).
    const base = parseHex(p.base);
    let opacity = 0.95;
    for (let t = 0.3; t < 0.95; t += 0.05) {
      const [a, b] = [
        luminance(mix(span.darkestPixel, base, t)),
        luminance(mix(span.brightestPixel, base, t)),
      ];
      if (inksFor(preferred, Math.min(a, b), Math.max(a, b), emphasised)) {
        opacity = t + 0.05;
        break;
      }
    }
    scrim(canvas, design, Math.min(0.95, opacity));
  }
  return {
    ...inks,
    plate: parseHex(p.plate),
    plateInk: parseHex(p.plateInk),
    outline: parseHex(p.outline),
    // Bars are the title colour, their text the base colour: the palettes are checked for that pair.
    bar: parseHex(p.ink),
    barInk: parseHex(p.base),
  };
}

/** A soft-edged panel of the base colour behind the whole title. */
function scrim(canvas: Canvas, design: Design, opacity: number): void {
  const layout = design.layout!;
  const pad = Math.max(8, layout.minSize * 0.35);
  const b = layout.bounds;
  paintSoftRect(
    canvas,
    { x: b.x - pad, y: b.y - pad, width: b.width + 2 * pad, height: b.height + 2 * pad },
    pad,
    pad * 1.5,
    parseHex(design.palette.base),
    opacity,
  );
}
