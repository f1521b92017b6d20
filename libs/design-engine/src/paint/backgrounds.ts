import { promisify } from 'node:util';
import { deflateRaw } from 'node:zlib';
import sharp from 'sharp';
import type { Design, WeightedColour } from '../layout/index.js';
import { Calmness, crispLayer } from './background-shapes.js';
import { smoothLayer } from './background-smooth.js';
import { sceneOf } from './background-scene.js';
import { checkpoint, shared } from './abort.js';
import { canvasBuffers, type Canvas } from './canvas.js';
import { backgroundReads, pixelCaches } from './caches.js';
import { inflateInto } from './inflate-into.js';

/**
 * Backgrounds depend on the canvas, the style's kind and palette, the template and a variant, not
 * on the title's words: a finite set, drawn once (librsvg takes tens of milliseconds) and kept as
 * raw pixels that a render copies in a fraction of a millisecond, and deflated, for when the raw
 * pixels have made room for others.
 */
const cache = pixelCaches.backgrounds;
const packed = pixelCaches.packedBackgrounds;
const deflate = promisify(deflateRaw);

/** Renders running now in this process (`Renderer.render`), which decides where an unpack runs. */
export const renders = { inFlight: 0 };

/** Backgrounds being packed now: they land in the packed cache after the render that drew them. */
const packsInFlight = new Set<Promise<unknown>>();

/** Resolves once every background being packed now is in the packed cache (or failed to pack). */
export async function packsSettled(): Promise<void> {
  await Promise.all(packsInFlight);
}

/** Smooth layers (gradients, glows, blurred blobs) are drawn at this fraction and enlarged. */
const SMOOTH_SCALE = 4;

export async function paintBackground(
  design: Design,
  mirror: WeightedColour[] | null,
  signal?: AbortSignal,
): Promise<Canvas> {
  const { width, height } = design.canvas;
  const key = backgroundKey(design, mirror);
  const bytes = width * height * 3;
  const pixels = await shared(
    cache,
    key,
    bytes,
    () => unpackOrDraw(key, bytes, design, mirror, signal),
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

/**
 * A packed background's pixels, or a new one drawn and packed. Packing runs on libuv's threads, beside
 * the main thread's work, at level 1: the bytes are read back far more often than written.
 */
async function unpackOrDraw(
  key: string,
  bytes: number,
  design: Design,
  mirror: WeightedColour[] | null,
  signal: AbortSignal | undefined,
): Promise<Buffer> {
  const kept = packed.get(key);
  if (kept) {
    // Beside other renders, in place: a fresh buffer per unpack is what starts V8's full collections,
    // and with the cores busy they cost the most. A render on its own unpacks on libuv's threads, so
    // that the main thread is free for its request's other work, and the idle core runs the collector.
    const pixels = canvasBuffers.take(bytes);
    try {
      await inflateInto(kept, pixels, { inPlace: renders.inFlight > 1 });
      return pixels;
    } catch {
      // Not what was packed: drawn again below, and packed again.
      canvasBuffers.give(pixels);
      packed.delete(key);
    }
  }
  const pixels = await drawBackground(design, mirror, signal);
  const pack: Promise<unknown> = deflate(pixels, { level: 1 })
    .then(
      (deflated) => packed.set(key, deflated, deflated.length),
      () => undefined,
    )
    .finally(() => packsInFlight.delete(pack));
  packsInFlight.add(pack);
  // Evicted raw pixels are written over by the next render: not while they are being packed.
  backgroundReads.set(pixels, pack);
  return pixels;
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
  // Every byte is written, so a buffer a render or an evicted background gave back will do.
  const out = canvasBuffers.take(W * H * 3);
  enlargeLayers(
    out,
    design.canvas,
    { pixels: smooth, ...small },
    shapes && { pixels: shapes, ...half },
    new Calmness(scene, W),
  );
  return out;
}

export interface Layer {
  pixels: Buffer;
  width: number;
  height: number;
}

/**
 * Writes the background into `out`: the smooth layer enlarged, the shapes (premultiplied) enlarged and
 * laid over it, weakened near the title by `calm`. A function of its own, not part of the async one
 * above: the loop over every pixel then runs as optimised code from its first call. Shapes cover a
 * quarter of a background's pixels or so: each row lays them over only between the first and the last
 * column they touch, and the rest of it is the smooth layer alone.
 */
export function enlargeLayers(
  out: Buffer,
  { width: W, height: H }: { width: number; height: number },
  smooth: Layer,
  shapes: Layer | null,
  calm: Calmness,
): void {
  const smoothRow = new Float32Array(smooth.width * 3);
  // Each column's step to the next, once per row rather than once per output pixel.
  const smoothStep = new Float64Array(smooth.width * 3);
  const shapeRow = new Float32Array((shapes?.width ?? 0) * 4);
  // Typed arrays in locals, neighbours read once: the loop runs for every pixel of a drawn background.
  const { index: smoothAt, weight: smoothWeight } = sampling(W, smooth.width);
  const { index: shapeAt, weight: shapeWeight } = sampling(W, shapes?.width ?? 1);
  // Where the shapes lie, by row, and the output columns each of their columns starts.
  const cover = shapes && { spans: coveredSpans(shapes), columnFrom: firstColumns(shapeAt, shapes.width) };
  for (let y = 0, o = 0; y < H; y++) {
    interpolateRow(smooth, (y + 0.5) / SMOOTH_SCALE - 0.5, smoothRow);
    for (let k = 0; k + 3 < smoothRow.length; k++) smoothStep[k] = smoothRow[k + 3]! - smoothRow[k]!;
    let from = W;
    let to = W;
    if (shapes && cover) {
      const fy = (y + 0.5) / 2 - 0.5;
      const { first, last } = spanAround(shapes, cover.spans, fy);
      if (first <= last) {
        // Columns just outside the span are read as neighbours: transparent, so they count as nothing.
        const lo = Math.max(0, first - 1);
        interpolatePremultipliedRow(shapes, fy, shapeRow, lo, Math.min(shapes.width - 1, last + 1));
        calm.row(y);
        from = cover.columnFrom[lo]!;
        to = cover.columnFrom[last + 1]!;
      }
    }
    o = smoothSpan(out, o, from, smoothRow, smoothStep, smoothAt, smoothWeight, 0);
    for (let x = from; x < to; x++, o += 3) {
      let i = smoothAt[x]! * 3;
      let w = smoothWeight[x]!;
      let r = smoothRow[i]! + smoothStep[i]! * w;
      let g = smoothRow[i + 1]! + smoothStep[i + 1]! * w;
      let b = smoothRow[i + 2]! + smoothStep[i + 2]! * w;
      i = shapeAt[x]! * 4;
      w = shapeWeight[x]!;
      // Premultiplied, so transparent neighbours do not darken the shapes' edges.
      const alpha0 = shapeRow[i + 3]!;
      const alpha = alpha0 + (shapeRow[i + 7]! - alpha0) * w;
      if (alpha > 0.5) {
        const c = calm.at(x);
        const a = (alpha / 255) * c;
        const sr = shapeRow[i]!;
        const sg = shapeRow[i + 1]!;
        const sb = shapeRow[i + 2]!;
        r += (sr + (shapeRow[i + 4]! - sr) * w) * c - r * a;
        g += (sg + (shapeRow[i + 5]! - sg) * w) * c - g * a;
        b += (sb + (shapeRow[i + 6]! - sb) * w) * c - b * a;
      }
      out[o] = r + 0.5;
      out[o + 1] = g + 0.5;
      out[o + 2] = b + 0.5;
    }
    o = smoothSpan(out, o, W, smoothRow, smoothStep, smoothAt, smoothWeight, to);
  }
}

/** Output columns `[x, end)` of the smooth layer's current row alone, written from `o`; the next `o`. */
function smoothSpan(
  out: Buffer,
  o: number,
  end: number,
  row: Float32Array,
  step: Float64Array,
  at: Int32Array,
  weight: Float32Array,
  x: number,
): number {
  for (; x < end; x++, o += 3) {
    const i = at[x]! * 3;
    const w = weight[x]!;
    out[o] = row[i]! + step[i]! * w + 0.5;
    out[o + 1] = row[i + 1]! + step[i + 1]! * w + 0.5;
    out[o + 2] = row[i + 2]! + step[i + 2]! * w + 0.5;
  }
  return o;
}

/** Per row of an RGBA layer, the first and the last column with any alpha; first > last when none. */
function coveredSpans({ pixels, width, height }: Layer): Int32Array {
  const spans = new Int32Array(height * 2);
  for (let y = 0; y < height; y++) {
    const row = y * width * 4;
    let first = 0;
    while (first < width && pixels[row + first * 4 + 3] === 0) first++;
    let last = width - 1;
    while (last > first && pixels[row + last * 4 + 3] === 0) last--;
    spans[y * 2] = first;
    spans[y * 2 + 1] = first < width ? last : -1;
  }
  return spans;
}

/** The columns covered in either of the two rows around output row `fy`. */
function spanAround(layer: Layer, spans: Int32Array, fy: number): { first: number; last: number } {
  const { y0, y1 } = sourceRows(layer, fy);
  return {
    first: Math.min(spans[y0 * 2]!, spans[y1 * 2]!),
    last: Math.max(spans[y0 * 2 + 1]!, spans[y1 * 2 + 1]!),
  };
}

/** For each column `s` of a layer (and one past its last), the first output column sampled at or past it. */
function firstColumns(at: Int32Array, width: number): Int32Array {
  const first = new Int32Array(width + 1).fill(at.length);
  for (let x = at.length - 1; x >= 0; x--) first[at[x]!] = x;
  // A column no output starts at takes the next one's first.
  for (let s = width - 1; s >= 0; s--) first[s] = Math.min(first[s]!, first[s + 1]!);
  return first;
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

/** The two rows of a layer around output row `fy`, and the weight of the lower. */
function sourceRows(layer: Layer, fy: number): { y0: number; y1: number; t: number } {
  const f = Math.max(0, Math.min(layer.height - 1, fy));
  const y0 = Math.floor(f);
  return { y0, y1: Math.min(layer.height - 1, y0 + 1), t: f - y0 };
}

/**
 * The two rows of a layer (`channels` per pixel) around output row `fy`: where the upper and the lower
 * start in its pixels, and their weights.
 */
function rowsAround(
  layer: Layer,
  channels: number,
  fy: number,
): { a: number; b: number; u: number; t: number } {
  const { y0, y1, t } = sourceRows(layer, fy);
  return { a: y0 * layer.width * channels, b: y1 * layer.width * channels, u: 1 - t, t };
}

/** One row of an RGB layer, interpolated between the two rows around `fy`. */
function interpolateRow(layer: Layer, fy: number, row: Float32Array): void {
  const { pixels, width } = layer;
  const { a, b, u, t } = rowsAround(layer, 3, fy);
  for (let o = 0; o < width * 3; o++) row[o] = pixels[a + o]! * u + pixels[b + o]! * t;
}

/**
 * Columns `[from, to]` of one row of an RGBA layer, its colours scaled by their alpha, interpolated
 * between the rows around `fy`.
 */
function interpolatePremultipliedRow(
  layer: Layer,
  fy: number,
  row: Float32Array,
  from: number,
  to: number,
): void {
  const { pixels } = layer;
  const { a, b, u, t } = rowsAround(layer, 4, fy);
  for (let o = from * 4; o <= to * 4; o += 4) {
    const alphaTop = pixels[a + o + 3]!;
    const alphaBottom = pixels[b + o + 3]!;
    // Rounded to single precision before the division, as a row of the layer is stored, so that a
    // background's bytes do not depend on how this loop is written.
    row[o] = Math.fround(pixels[a + o]! * alphaTop * u + pixels[b + o]! * alphaBottom * t) / 255;
    row[o + 1] = Math.fround(pixels[a + o + 1]! * alphaTop * u + pixels[b + o + 1]! * alphaBottom * t) / 255;
    row[o + 2] = Math.fround(pixels[a + o + 2]! * alphaTop * u + pixels[b + o + 2]! * alphaBottom * t) / 255;
    row[o + 3] = alphaTop * u + alphaBottom * t;
  }
}

function svg(size: { width: number; height: number }, W: number, H: number, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none">${body}</svg>`;
}
