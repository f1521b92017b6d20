import { dimensionsOf } from '@thumbforge/contracts';
import type { Rect, Rgb } from '../layout/index.js';

/**
 * The picture being drawn: 8-bit RGB, row by row, opaque. Every layer is blended into it in place,
 * and it is handed to the encoder once at the end.
 */
export interface Canvas {
  data: Buffer;
  width: number;
  height: number;
}

/** A coverage mask (0 to 255) placed at `left`, `top` on the canvas. */
export interface Mask {
  alpha: Uint8Array;
  width: number;
  height: number;
  left: number;
  top: number;
  /** Per row, the first and past-the-last column that may be non-zero; absent means the whole row. */
  spans?: Int32Array;
}

/** RGBA pixels, not premultiplied, placed at `left`, `top`. */
export interface Sprite {
  data: Uint8Array;
  width: number;
  height: number;
  left: number;
  top: number;
}

/**
 * Canvas buffers given back by renders that have encoded them, and evicted backgrounds, for the next
 * canvas or background drawn at the same size. Where malloc maps a fresh buffer this large anew (blocks
 * over `MALLOC_MMAP_THRESHOLD_`, 1 MiB in the cluster's processes), copying a background into it faults
 * in every page: 2.7 MB, about 700 faults, per youtube sd render. And one that is dropped waits, unmapped
 * or not, for V8's next full collection. Whoever gives a buffer back must hold no other reference to it.
 */
export class CanvasBuffers {
  /** Oldest first. A handful at most, so a scan is cheaper than an index. */
  private readonly idle: Buffer[] = [];
  private held = 0;

  /** Keeps at most `maxBytes` of idle buffers, dropping the oldest to the GC past that. */
  constructor(private maxBytes: number) {}

  /** A buffer of exactly `bytes`, with whatever a previous render left in it. */
  take(bytes: number): Buffer {
    const at = this.idle.findLastIndex((buffer) => buffer.length === bytes);
    if (at < 0) return Buffer.allocUnsafeSlow(bytes);
    const [reused] = this.idle.splice(at, 1);
    this.held -= bytes;
    return reused!;
  }

  give(buffer: Buffer): void {
    // Only whole allocations: a view of a larger one would hand out memory still used elsewhere.
    if (buffer.byteOffset !== 0 || buffer.byteLength !== buffer.buffer.byteLength) return;
    if (buffer.length > this.maxBytes) return;
    this.idle.push(buffer);
    this.held += buffer.length;
    this.trim();
  }

  /** Changes the cap, dropping the oldest idle buffers past it. */
  resize(maxBytes: number): void {
    this.maxBytes = maxBytes;
    this.trim();
  }

  /** Idle bytes held. */
  get bytes(): number {
    return this.held;
  }

  private trim(): void {
    while (this.held > this.maxBytes) this.held -= this.idle.shift()!.length;
  }
}

/** An idle youtube sd canvas (the most common size, RGB) for each render and one for a background. */
function idleCanvasBytes(renders: number): number {
  const { width, height } = dimensionsOf('youtube', 'sd');
  return (renders + 1) * width * height * 3;
}

/** Sized for two renders at a time until `limitCanvasBuffers` says how many a process runs. */
export const canvasBuffers = new CanvasBuffers(idleCanvasBytes(2));

/**
 * Keeps an idle youtube sd canvas for each of `renders` renders at a time and one for a background
 * being drawn. With fewer, a burst of renders allocates canvases that the next burst finds dropped:
 * embedded mode at 4 renders and a cap of two canvases allocated a fresh one for 37 % of its renders,
 * about 1 MB of garbage a request waiting for a full collection (docs/architecture.md, "Memory").
 */
export function limitCanvasBuffers(renders: number): void {
  canvasBuffers.resize(idleCanvasBytes(renders));
}

export function copyCanvas(canvas: Canvas): Canvas {
  return { data: Buffer.from(canvas.data), width: canvas.width, height: canvas.height };
}

/** Blends `colour` into the canvas through a mask, at `opacity`. */
export function paintMask(canvas: Canvas, mask: Mask, colour: Rgb, opacity = 1): void {
  const { data, width: W, height: H } = canvas;
  const y0 = Math.max(0, mask.top);
  const y1 = Math.min(H, mask.top + mask.height);
  const { r, g, b } = colour;
  const scale = Math.round(opacity * 256);
  const spans = mask.spans;
  for (let y = y0; y < y1; y++) {
    const row = y - mask.top;
    const from = spans ? spans[row * 2]! : 0;
    const to = spans ? spans[row * 2 + 1]! : mask.width;
    const x0 = Math.max(0, mask.left + from);
    const x1 = Math.min(W, mask.left + to);
    let m = row * mask.width + (x0 - mask.left);
    let o = (y * W + x0) * 3;
    for (let x = x0; x < x1; x++, m++, o += 3) {
      const coverage = mask.alpha[m]!;
      if (coverage === 0) continue;
      const a = (coverage * scale) >> 8;
      if (a >= 255) {
        data[o] = r;
        data[o + 1] = g;
        data[o + 2] = b;
      } else {
        const keep = 255 - a;
        data[o] = (data[o]! * keep + r * a + 127) / 255;
        data[o + 1] = (data[o + 1]! * keep + g * a + 127) / 255;
        data[o + 2] = (data[o + 2]! * keep + b * a + 127) / 255;
      }
    }
  }
}

/** Blends an RGBA sprite into the canvas, at `opacity`. */
export function paintSprite(canvas: Canvas, sprite: Sprite, opacity = 1): void {
  const { data, width: W, height: H } = canvas;
  const x0 = Math.max(0, sprite.left);
  const y0 = Math.max(0, sprite.top);
  const x1 = Math.min(W, sprite.left + sprite.width);
  const y1 = Math.min(H, sprite.top + sprite.height);
  const scale = Math.round(opacity * 256);
  const src = sprite.data;
  for (let y = y0; y < y1; y++) {
    let s = ((y - sprite.top) * sprite.width + (x0 - sprite.left)) * 4;
    let o = (y * W + x0) * 3;
    for (let x = x0; x < x1; x++, s += 4, o += 3) {
      const a = (src[s + 3]! * scale) >> 8;
      if (a === 0) continue;
      if (a >= 255) {
        data[o] = src[s]!;
        data[o + 1] = src[s + 1]!;
        data[o + 2] = src[s + 2]!;
      } else {
        const keep = 255 - a;
        data[o] = (data[o]! * keep + src[s]! * a + 127) / 255;
        data[o + 1] = (data[o + 1]! * keep + src[s + 1]! * a + 127) / 255;
        data[o + 2] = (data[o + 2]! * keep + src[s + 2]! * a + 127) / 255;
      }
    }
  }
}

/** The pixel's relative luminance (WCAG), through a 256-entry table. */
const LINEAR = Float64Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

export function luminanceAt(canvas: Canvas, x: number, y: number): number {
  const o = (y * canvas.width + x) * 3;
  return (
    0.2126 * LINEAR[canvas.data[o]!]! +
    0.7152 * LINEAR[canvas.data[o + 1]!]! +
    0.0722 * LINEAR[canvas.data[o + 2]!]!
  );
}

/**
 * Blends `colour` over a rounded rectangle whose edge fades out over `feather` pixels outside it:
 * the distance to the shape is computed per pixel, so no mask or blur is needed.
 */
export function paintSoftRect(
  canvas: Canvas,
  rect: Rect,
  radius: number,
  feather: number,
  colour: Rgb,
  opacity: number,
): void {
  const { data, width: W, height: H } = canvas;
  const x0 = Math.max(0, Math.floor(rect.x - feather));
  const y0 = Math.max(0, Math.floor(rect.y - feather));
  const x1 = Math.min(W, Math.ceil(rect.x + rect.width + feather));
  const y1 = Math.min(H, Math.ceil(rect.y + rect.height + feather));
  const cx = rect.x + rect.width / 2;
  const cy = rect.y + rect.height / 2;
  const hx = rect.width / 2 - radius;
  const hy = rect.height / 2 - radius;
  const { r, g, b } = colour;
  for (let y = y0; y < y1; y++) {
    const dy = Math.max(0, Math.abs(y + 0.5 - cy) - hy);
    let o = (y * W + x0) * 3;
    for (let x = x0; x < x1; x++, o += 3) {
      const ax = x + 0.5 - cx;
      const dx = (ax < 0 ? -ax : ax) - hx;
      const outside = (dx <= 0 ? dy : dy === 0 ? dx : Math.sqrt(dx * dx + dy * dy)) - radius;
      if (outside >= feather) continue;
      const t = outside <= 0 ? 1 : 1 - outside / feather;
      const a = opacity * t * t * (3 - 2 * t);
      data[o] = data[o]! + (r - data[o]!) * a + 0.5;
      data[o + 1] = data[o + 1]! + (g - data[o + 1]!) * a + 0.5;
      data[o + 2] = data[o + 2]! + (b - data[o + 2]!) * a + 0.5;
    }
  }
}
