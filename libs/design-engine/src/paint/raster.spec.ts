import { describe, expect, it } from 'vitest';
import type { Canvas } from './canvas.js';
import { Coverage, FlatPath, paintLayers, ScratchPool } from './raster.js';

const total = (alpha: Uint8Array) => alpha.reduce((s, a) => s + a, 0) / 255;

describe('ScratchPool', () => {
  /** Cells in a KiB. */
  const KIB_CELLS = 1024 / 4;
  /** The rasteriser's pool of cells: new buffers rounded up to 256 KiB. */
  const cellPool = (maxBuffers: number, maxBytes: number) =>
    new ScratchPool<Float32Array>(Float32Array, 64 * 1024, maxBuffers, maxBytes);
  /** Takes buffers of these many 256 KiB and gives them all back. */
  const filled = (pool: ScratchPool<Float32Array>, sizes: number[]) => {
    const taken = sizes.map((size) => pool.take(size * 256 * KIB_CELLS));
    for (const cells of taken) pool.give(cells);
    return taken.map((cells) => cells.buffer);
  };

  it('rounds new buffers up to 256 KiB and hands out views of the length asked for', () => {
    const cells = cellPool(4, 4 * 1024 * 1024).take(1_000);
    expect(cells.length).toBe(1_000);
    expect(cells.buffer.byteLength).toBe(256 * 1024);
  });

  it('hands out the smallest idle buffer that fits', () => {
    const pool = cellPool(4, 16 * 1024 * 1024);
    const [, middle, large] = filled(pool, [1, 2, 3]);
    expect(pool.take(300 * KIB_CELLS).buffer).toBe(middle);
    expect(pool.take(300 * KIB_CELLS).buffer).toBe(large);
    expect(pool.bytes).toBe(256 * 1024);
  });

  it.each([
    ['within both limits', 2, 4, [1, 2], [1, 2]],
    ['a larger buffer displaces the smallest past the count', 2, 4, [1, 2, 3], [2, 3]],
    ['a larger buffer displaces smaller ones past the bytes', 4, 1, [1, 1, 2, 4], [4]],
    ['a smaller buffer is dropped when larger ones fill the pool', 2, 4, [3, 2, 1], [2, 3]],
    ['a buffer past the byte limit is never kept', 4, 1, [5], []],
  ] as const)('keeps what serves most: %s', (_, maxBuffers, maxMiB, sizes, kept) => {
    const pool = cellPool(maxBuffers, maxMiB * 1024 * 1024);
    const buffers = filled(pool, [...sizes]);
    expect(pool.bytes).toBe(kept.reduce((sum, size) => sum + size * 256 * 1024, 0));
    // Taking the largest first empties the pool in order, so every kept buffer is seen.
    const out = [...kept].reverse().map((size) => pool.take(size * 256 * KIB_CELLS).buffer);
    expect(out.every((buffer) => buffers.includes(buffer))).toBe(true);
    expect(pool.bytes).toBe(0);
  });
});

describe('Coverage', () => {
  it('reuses the scratch cells of a finished rasteriser, cleared', () => {
    const path = new FlatPath();
    path.rect(10, 10, 500, 300);
    const first = new Coverage(600, 400);
    first.fill(path);
    first.toMask(0, 0);
    const next = new Coverage(600, 400);
    expect(next.cells.buffer).toBe(first.cells.buffer);
    expect(next.cells.every((cell) => cell === 0)).toBe(true);
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

describe('FlatPath', () => {
  /** A polygon of `sides` points on a circle: 4 numbers a segment, so `sides` × 32 bytes of segments. */
  const ring = (path: FlatPath, sides: number, radius = 40) =>
    path.polygon(
      Array.from({ length: sides }, (_, i) => {
        const angle = (2 * Math.PI * i) / sides;
        return [50 + radius * Math.cos(angle), 50 + radius * Math.sin(angle)] as const;
      }),
    );
  const coverageOf = (path: FlatPath) => {
    const coverage = new Coverage(100, 100);
    coverage.fill(path);
    return coverage.toMask(0, 0).alpha;
  };

  it('grows past its first segments and keeps every one of them', () => {
    const path = new FlatPath();
    ring(path, 5_000);
    expect(path.length).toBe(5_000 * 4);
    expect(path.segments.length).toBeGreaterThanOrEqual(path.length);
    // The last segment closes the ring onto its first point.
    expect([...path.segments.subarray(path.length - 2, path.length)]).toEqual([90, 50]);
    expect(total(coverageOf(path))).toBeCloseTo(Math.PI * 40 * 40, -1);
  });

  it("hands a released path's segments to the next path, which draws the same as a fresh one", () => {
    // New arrays of 1,024 numbers: 12,000 of them take three doublings, each handing the last back.
    const pool = new ScratchPool<Float64Array>(Float64Array, 1_024, 8, 1024 * 1024);
    const first = new FlatPath(pool);
    ring(first, 3_000);
    expect(first.segments.length).toBe(16_384);
    expect(pool.bytes).toBe((1_024 + 2_048 + 4_096 + 8_192) * 8);
    const expected = coverageOf(first);
    const buffer = first.segments.buffer;
    first.release();
    expect(first.length).toBe(0);
    expect(pool.bytes).toBe((1_024 + 2_048 + 4_096 + 8_192 + 16_384) * 8);
    const next = new FlatPath(pool);
    ring(next, 3_000);
    expect(next.segments.buffer === buffer).toBe(true);
    expect(Buffer.from(coverageOf(next)).equals(Buffer.from(expected))).toBe(true);
    next.release();
  });

  it('appends another path into segments that grow to hold both', () => {
    const [a, b] = [new FlatPath(), new FlatPath()];
    ring(a, 2_000, 20);
    ring(b, 4_000, 40);
    const both = new FlatPath();
    both.append(a);
    both.append(b);
    expect(both.length).toBe(a.length + b.length);
    expect([...both.segments.subarray(a.length, a.length + 8)]).toEqual([...b.segments.subarray(0, 8)]);
    for (const path of [a, b, both]) path.release();
  });
});
