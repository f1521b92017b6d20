import sharp from 'sharp';
import type { Design, WeightedColour } from '../layout/index.js';
import { calmness, crispLayer } from './background-shapes.js';
import { smoothLayer } from './background-smooth.js';
import { sceneOf } from './background-scene.js';
import { checkpoint, shared } from './abort.js';
import { canvasBuffers, type Canvas } from './canvas.js';
import { pixelCaches } from './caches.js';

/**
 * Backgrounds depend on the canvas, the style's kind and palette, the template and a variant, not
 * on the title's words: a finite set, drawn once (librsvg takes tens of milliseconds) and kept as
 * raw pixels that a render copies in a fraction of a millisecond.
 */
const cache = pixelCaches.backgrounds;

/** Smooth layers (gradients, glows, blurred blobs) are drawn at this fraction and enlarged. */
const SMOOTH_SCALE = 4;

export async function paintBackground(
  design: Design,
  mirror: WeightedColour[] | null,
  signal?: AbortSignal,
): Promise<Canvas> {
  const { width, height } = design.canvas;
  const key = backgroundKey(design, mirror);
  const pixels = await shared(
    cache,
    key,
    width * height * 3,
    () => drawBackground(design, mirror, signal),
    signal,
  );
  checkpoint(signal);
  // A private copy, the render draws into it: in a buffer a finished render gave back when there is one.
  const data = canvasBuffers.take(pixels.length);
  pixels.copy(data);
  return { data, width, height };
}

function backgroundKey(design: Design, mirror: WeightedColour[] | null): string {
  const { template, palette, background, canvas } = design;
  return JSON.stringify([
    canvas.width,
    canvas.height,
    background.kind,
    background.variant,
    palette,
    template.id,
    template.titleBox,
    template.photo?.rect ?? null,
    mirror,
  ]);
}

async function drawBackground(
  design: Design,
  mirror: WeightedColour[] | null,
  signal: AbortSignal | undefined,
): Promise<Buffer> {
  const { width: W, height: H } = design.canvas;
  const scene = sceneOf(design, mirror ?? []);
  // Smooth layers at a quarter of the size, shapes at half: librsvg's time goes with the pixel
  // count, and neither loses anything that shows behind a title once enlarged.
  const small = {
    width: Math.max(1, Math.round(W / SMOOTH_SCALE)),
    height: Math.max(1, Math.round(H / SMOOTH_SCALE)),
  };
  const half = { width: Math.ceil(W / 2), height: Math.ceil(H / 2) };
  const crisp = crispLayer(scene);
  const [smooth, shapes] = await Promise.all([
    sharp(Buffer.from(svg(small, W, H, smoothLayer(scene))))
      .removeAlpha()
      .raw()
      .toBuffer(),
    crisp
      ? sharp(Buffer.from(svg(half, W, H, crisp)))
          .ensureAlpha()
          .raw()
          .toBuffer()
      : Promise.resolve(null),
  ]);
  checkpoint(signal);
  // Every byte is written below, so a buffer a render or an evicted background gave back will do.
  const out = canvasBuffers.take(W * H * 3);
  const calm = calmness(scene);
  const smoothRow = new Float32Array(small.width * 3);
  const shapeRow = new Float32Array(half.width * 4);
  const sx = sampling(W, small.width);
  const hx = sampling(W, half.width);
  for (let y = 0; y < H; y++) {
    interpolateRow(smooth, small, 3, (y + 0.5) / SMOOTH_SCALE - 0.5, smoothRow, false);
    if (shapes) interpolateRow(shapes, half, 4, (y + 0.5) / 2 - 0.5, shapeRow, true);
    for (let x = 0; x < W; x++) {
      const o = (y * W + x) * 3;
      let i = sx.index[x]! * 3;
      let w = sx.weight[x]!;
      let r = smoothRow[i]! + (smoothRow[i + 3]! - smoothRow[i]!) * w;
      let g = smoothRow[i + 1]! + (smoothRow[i + 4]! - smoothRow[i + 1]!) * w;
      let b = smoothRow[i + 2]! + (smoothRow[i + 5]! - smoothRow[i + 2]!) * w;
      if (shapes) {
        i = hx.index[x]! * 4;
        w = hx.weight[x]!;
        // Premultiplied, so transparent neighbours do not darken the shapes' edges.
        const alpha = shapeRow[i + 3]! + (shapeRow[i + 7]! - shapeRow[i + 3]!) * w;
        if (alpha > 0.5) {
          const c = calm(x, y);
          const a = (alpha / 255) * c;
          r += (shapeRow[i]! + (shapeRow[i + 4]! - shapeRow[i]!) * w) * c - r * a;
          g += (shapeRow[i + 1]! + (shapeRow[i + 5]! - shapeRow[i + 1]!) * w) * c - g * a;
          b += (shapeRow[i + 2]! + (shapeRow[i + 6]! - shapeRow[i + 2]!) * w) * c - b * a;
        }
      }
      out[o] = r + 0.5;
      out[o + 1] = g + 0.5;
      out[o + 2] = b + 0.5;
    }
  }
  return out;
}

/** For each output column, the source column to its left and the weight of the one to its right. */
function sampling(size: number, source: number): { index: Int32Array; weight: Float32Array } {
  const index = new Int32Array(size);
  const weight = new Float32Array(size);
  const scale = source / size;
  for (let x = 0; x < size; x++) {
    const f = Math.max(0, Math.min(source - 1, (x + 0.5) * scale - 0.5));
    const i = Math.min(source - 2, Math.floor(f));
    index[x] = Math.max(0, i);
    weight[x] = source > 1 ? f - Math.max(0, i) : 0;
  }
  return { index, weight };
}

/** One source row, interpolated between the two rows around `fy` (premultiplied when asked). */
function interpolateRow(
  pixels: Buffer,
  size: { width: number; height: number },
  channels: 3 | 4,
  fy: number,
  row: Float32Array,
  premultiply: boolean,
): void {
  const f = Math.max(0, Math.min(size.height - 1, fy));
  const y0 = Math.floor(f);
  const y1 = Math.min(size.height - 1, y0 + 1);
  const t = f - y0;
  const a = y0 * size.width * channels;
  const b = y1 * size.width * channels;
  for (let x = 0; x < size.width; x++) {
    const o = x * channels;
    if (premultiply) {
      const alphaTop = pixels[a + o + 3]!;
      const alphaBottom = pixels[b + o + 3]!;
      for (let c = 0; c < 3; c++) {
        row[o + c] = pixels[a + o + c]! * alphaTop * (1 - t) + pixels[b + o + c]! * alphaBottom * t;
      }
      row[o + 3] = alphaTop * (1 - t) + alphaBottom * t;
      for (let c = 0; c < 3; c++) row[o + c] = row[o + c]! / 255;
    } else {
      for (let c = 0; c < channels; c++) row[o + c] = pixels[a + o + c]! * (1 - t) + pixels[b + o + c]! * t;
    }
  }
}

function svg(size: { width: number; height: number }, W: number, H: number, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none">${body}</svg>`;
}
