import { contrastRatio, type Rect, type Rgb } from '../src/layout/index.js';
import type { Canvas } from '../src/paint/canvas.js';
import type { Composition } from '../src/engine.js';
import { backdropAreas } from '../src/paint/title.js';

export function pixelAt(canvas: Canvas, x: number, y: number): Rgb {
  const o = (Math.round(y) * canvas.width + Math.round(x)) * 3;
  return { r: canvas.data[o]!, g: canvas.data[o + 1]!, b: canvas.data[o + 2]! };
}

function eachPixel(canvas: Canvas, area: Rect, step: number, visit: (x: number, y: number) => void): void {
  const x0 = Math.max(0, Math.floor(area.x));
  const y0 = Math.max(0, Math.floor(area.y));
  const x1 = Math.min(canvas.width, Math.ceil(area.x + area.width));
  const y1 = Math.min(canvas.height, Math.ceil(area.y + area.height));
  for (let y = y0; y < y1; y += step) for (let x = x0; x < x1; x += step) visit(x, y);
}

const same = (a: Rgb, b: Rgb) => Math.abs(a.r - b.r) + Math.abs(a.g - b.g) + Math.abs(a.b - b.b) <= 3;

/**
 * The title's contrast as rendered: for each area where text is read against the backdrop, the
 * text colour found in the final pixels (the colour of fully inked pixels there) against every
 * backdrop pixel behind the area (the picture just before the title was drawn). The worst ratio.
 */
export function renderedContrast(
  composition: Composition,
  image: Canvas,
): { worst: number; textPixels: number } {
  const { design, colours, backdrop } = composition;
  if (!backdrop || !colours || !design.layout) throw new Error('compose with keepBackdrop and a title');
  const areas = backdropAreas(design);
  let worst = Infinity;
  let textPixels = 0;
  for (const [rects, ink] of [
    [areas.plain, colours.ink],
    [areas.emphasis, colours.emphasisInk],
  ] as const) {
    for (const area of rects) {
      // The text as drawn: pixels of the final image in the ink's colour.
      let inked = 0;
      eachPixel(image, area, 1, (x, y) => {
        if (same(pixelAt(image, x, y), ink)) inked++;
      });
      textPixels += inked;
      if (inked === 0) continue;
      eachPixel(backdrop, area, 2, (x, y) => {
        worst = Math.min(worst, contrastRatio(ink, pixelAt(backdrop, x, y)));
      });
    }
  }
  // Text on a plate or a bar is read against the plate: both colours must be there, drawn.
  const plated: Array<[Rect[], Rgb, Rgb]> = [
    [design.layout.emphasisPlates, colours.plateInk, colours.plate],
    [design.layout.lines.flatMap((l) => (l.plate ? [l.plate] : [])), colours.barInk, colours.bar],
  ];
  if (design.style.treatment.emphasis !== 'plate') plated[0]![0] = [];
  for (const [rects, ink, plate] of plated) {
    for (const area of rects) {
      let inked = 0;
      let plain = 0;
      eachPixel(image, area, 1, (x, y) => {
        const p = pixelAt(image, x, y);
        if (same(p, ink)) inked++;
        else if (same(p, plate)) plain++;
      });
      if (inked === 0 || plain === 0) continue;
      textPixels += inked;
      worst = Math.min(worst, contrastRatio(ink, plate));
    }
  }
  return { worst, textPixels };
}

/** Pixels that differ between two pictures of the same size (outside `ignore`), as a bounding box, or null. */
export function changedBounds(a: Canvas, b: Canvas, ignore: Rect | null = null, threshold = 24): Rect | null {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const o = (y * a.width + x) * 3;
      const d =
        Math.abs(a.data[o]! - b.data[o]!) +
        Math.abs(a.data[o + 1]! - b.data[o + 1]!) +
        Math.abs(a.data[o + 2]! - b.data[o + 2]!);
      if (d <= threshold) continue;
      if (
        ignore &&
        x >= ignore.x &&
        x < ignore.x + ignore.width &&
        y >= ignore.y &&
        y < ignore.y + ignore.height
      )
        continue;
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
    }
  }
  return x0 === Infinity ? null : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

/** Mean absolute difference per channel (0 to 255) of two pictures shrunk to the same small grid. */
export function meanDifference(a: Canvas, b: Canvas, grid = 32): number {
  let total = 0;
  let n = 0;
  for (let gy = 0; gy < grid; gy++) {
    for (let gx = 0; gx < grid; gx++) {
      const pa = pixelAt(a, ((gx + 0.5) / grid) * (a.width - 1), ((gy + 0.5) / grid) * (a.height - 1));
      const pb = pixelAt(b, ((gx + 0.5) / grid) * (b.width - 1), ((gy + 0.5) / grid) * (b.height - 1));
      total += Math.abs(pa.r - pb.r) + Math.abs(pa.g - pb.g) + Math.abs(pa.b - pb.b);
      n += 3;
    }
  }
  return total / n;
}

/** A decoded PNG or WebP as an RGB canvas. */
export async function decode(image: Buffer): Promise<Canvas> {
  const sharp = (await import('sharp')).default;
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}
