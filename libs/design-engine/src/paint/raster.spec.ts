import { describe, expect, it } from 'vitest';
import type { Canvas } from './canvas.js';
import { Coverage, FlatPath, paintLayers } from './raster.js';

const total = (alpha: Uint8Array) => alpha.reduce((s, a) => s + a, 0) / 255;

describe('Coverage', () => {
  it('keeps at most 8 MiB of idle scratch cells for the next rasteriser', () => {
    // Takes whatever earlier tests left idle (at most eight buffers), so the pool starts empty.
    for (let i = 0; i < 8; i++) new Coverage(1, 1);
    // 1,002 × 1,000 cells are 4,008,000 bytes: two fit in 8 MiB, a third does not.
    const released = Array.from({ length: 4 }, () => new Coverage(1000, 1000));
    for (const c of released) c.release();
    const buffers = new Set(released.map((c) => c.cells.buffer));
    const reused = Array.from({ length: 4 }, () => new Coverage(1000, 1000)).filter((c) =>
      buffers.has(c.cells.buffer),
    );
    expect(reused).toHaveLength(2);
  });

  it('covers exactly the area of a rectangle, with anti-aliased edges', () => {
    const path = new FlatPath();
    path.rect(2.5, 3.25, 10, 4.5);
    const c = new Coverage(20, 12);
    c.fill(path);
    const mask = c.toMask(0, 0);
    expect(total(mask.alpha)).toBeCloseTo(45, 1);
    expect(mask.alpha[5 * 20 + 2]).toBe(128);
    expect(mask.alpha[5 * 20 + 5]).toBe(255);
    expect(mask.alpha[5 * 20 + 15]).toBe(0);
  });

  it('covers the area of a circle to within a fraction of a percent', () => {
    const path = new FlatPath();
    path.circle(50, 50, 30);
    const c = new Coverage(100, 100);
    c.fill(path);
    expect(total(c.toMask(0, 0).alpha) / (Math.PI * 900)).toBeCloseTo(1, 2);
  });

  it('leaves holes drawn the other way round empty, and saturates overlaps', () => {
    const path = new FlatPath();
    path.polygon([
      [0, 0],
      [10, 0],
      [10, 10],
      [0, 10],
    ]);
    path.polygon([
      [3, 3],
      [3, 7],
      [7, 7],
      [7, 3],
    ]);
    path.polygon([
      [5, 0],
      [10, 0],
      [10, 5],
      [5, 5],
    ]);
    const c = new Coverage(10, 10);
    c.fill(path);
    const mask = c.toMask(0, 0);
    expect(mask.alpha[5 * 10 + 4]).toBe(0);
    expect(mask.alpha[1 * 10 + 8]).toBe(255);
    // 100 − 16 (the hole) + 4 (where the third square covers the hole again).
    expect(total(mask.alpha)).toBeCloseTo(88, 5);
  });

  it('clips shapes at the edges without spilling into the next row', () => {
    const path = new FlatPath();
    path.rect(-5, 2, 30, 2);
    const c = new Coverage(10, 6);
    c.fill(path);
    const mask = c.toMask(0, 0);
    expect([...mask.alpha.slice(20, 40)].every((a) => a === 255)).toBe(true);
    expect([...mask.alpha.slice(40)].every((a) => a === 0)).toBe(true);
  });

  it('reuses its scratch cells clean: a second coverage starts empty', () => {
    const a = new Coverage(30, 30);
    const path = new FlatPath();
    path.circle(15, 15, 10);
    a.fill(path);
    a.toMask(0, 0);
    const b = new Coverage(30, 30);
    expect(total(b.toMask(0, 0).alpha)).toBe(0);
  });

  it('paints a coverage into a canvas in one pass', () => {
    const canvas: Canvas = { data: Buffer.alloc(8 * 8 * 3), width: 8, height: 8 };
    const path = new FlatPath();
    path.rect(2, 2, 4, 4);
    const c = new Coverage(8, 8);
    c.fill(path);
    paintLayers(canvas, { x: 0, y: 0, width: 8, height: 8 }, [
      { coverage: c, colour: { r: 255, g: 0, b: 0 }, opacity: 1 },
    ]);
    expect([...canvas.data.subarray((3 * 8 + 3) * 3, (3 * 8 + 3) * 3 + 3)]).toEqual([255, 0, 0]);
    expect([...canvas.data.subarray(0, 3)]).toEqual([0, 0, 0]);
  });
});
