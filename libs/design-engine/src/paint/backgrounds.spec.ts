import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Calmness } from './background-shapes.js';
import type { Scene } from './background-scene.js';
import { enlargeLayers, type Layer } from './backgrounds.js';

/**
 * Every pixel by the formula, with no spans: the smooth layer enlarged, the shapes' row and column
 * neighbours premultiplied and weighted, laid over where their alpha shows, weakened by `calm`.
 */
function reference(W: number, H: number, smooth: Layer, shapes: Layer | null, calm: Calmness): Buffer {
  const out = Buffer.alloc(W * H * 3);
  const sample = (size: number, source: number, x: number) => {
    const f = Math.max(0, Math.min(source - 1, (x + 0.5) * (source / size) - 0.5));
    const i = Math.max(0, Math.min(source - 2, Math.floor(f)));
    return { i, w: source > 1 ? Math.fround(f - i) : 0 };
  };
  const rows = (layer: Layer, fy: number) => {
    const f = Math.max(0, Math.min(layer.height - 1, fy));
    const y0 = Math.floor(f);
    return { y0, y1: Math.min(layer.height - 1, y0 + 1), t: f - y0 };
  };
  const smoothAt = (x: number, fy: number, c: number) => {
    const { y0, y1, t } = rows(smooth, fy);
    const p = (y: number) => smooth.pixels[(y * smooth.width + x) * 3 + c]!;
    return Math.fround(p(y0) * (1 - t) + p(y1) * t);
  };
  const shapeAt = (x: number, fy: number, c: number) => {
    const { y0, y1, t } = rows(shapes!, fy);
    const p = (y: number, k: number) => shapes!.pixels[(y * shapes!.width + x) * 4 + k]!;
    if (c === 3) return Math.fround(p(y0, 3) * (1 - t) + p(y1, 3) * t);
    return Math.fround(Math.fround(p(y0, c) * p(y0, 3) * (1 - t) + p(y1, c) * p(y1, 3) * t) / 255);
  };
  for (let y = 0; y < H; y++) {
    const fs = (y + 0.5) / 4 - 0.5;
    const fh = (y + 0.5) / 2 - 0.5;
    calm.row(y);
    for (let x = 0; x < W; x++) {
      const s = sample(W, smooth.width, x);
      const rgb = [0, 1, 2].map((c) => {
        const v0 = smoothAt(s.i, fs, c);
        return v0 + (smoothAt(s.i + 1, fs, c) - v0) * s.w;
      });
      if (shapes) {
        const h = sample(W, shapes.width, x);
        const a0 = shapeAt(h.i, fh, 3);
        const alpha = a0 + (shapeAt(h.i + 1, fh, 3) - a0) * h.w;
        if (alpha > 0.5) {
          const k = calm.at(x);
          const a = (alpha / 255) * k;
          for (let c = 0; c < 3; c++) {
            const v0 = shapeAt(h.i, fh, c);
            rgb[c] = rgb[c]! + ((v0 + (shapeAt(h.i + 1, fh, c) - v0) * h.w) * k - rgb[c]! * a);
          }
        }
      }
      for (let c = 0; c < 3; c++) out[(y * W + x) * 3 + c] = rgb[c]! + 0.5;
    }
  }
  return out;
}

/** A small pseudo-random generator, so that a layer of any size comes from one seed. */
function bytes(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) & 255;
  };
}

/** Shapes as backgrounds have them: rows left empty, runs of cover, scattered dots, soft edges. */
function shapesLayer(width: number, height: number, seed: number): Layer {
  const next = bytes(seed);
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    const kind = next() % 4;
    if (kind === 0) continue;
    const start = next() % width;
    const end = kind === 1 ? start + 1 + (next() % (width - start)) : width;
    for (let x = start; x < end; x++) {
      if (kind === 2 && next() % 5 !== 0) continue;
      const o = (y * width + x) * 4;
      for (let c = 0; c < 3; c++) pixels[o + c] = next();
      pixels[o + 3] = kind === 3 ? next() : 255;
    }
  }
  return { pixels, width, height };
}

describe('enlargeLayers', () => {
  it('writes every pixel as the formula does, shapes or none, wherever they lie', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: 72 }),
        fc.integer({ min: 8, max: 48 }),
        fc.integer(),
        fc.boolean(),
        fc.record({ x: fc.nat(60), y: fc.nat(40), width: fc.nat(60), height: fc.nat(40) }),
        (W, H, seed, withShapes, box) => {
          const next = bytes(seed + 1);
          const small = { width: Math.max(1, Math.round(W / 4)), height: Math.max(1, Math.round(H / 4)) };
          const smooth = {
            pixels: Buffer.from(Array.from({ length: small.width * small.height * 3 }, next)),
            ...small,
          };
          const shapes = withShapes ? shapesLayer(Math.ceil(W / 2), Math.ceil(H / 2), seed) : null;
          const scene = { unit: Math.min(W, H) * 8, template: { titleBox: box } } as unknown as Scene;
          // Junk where the background goes: every byte must be written.
          const out = Buffer.alloc(W * H * 3, 0xa5);
          enlargeLayers(out, { width: W, height: H }, smooth, shapes, new Calmness(scene, W));
          const expected = reference(W, H, smooth, shapes, new Calmness(scene, W));
          expect(out.equals(expected)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
