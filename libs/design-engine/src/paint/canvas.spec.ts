import { describe, expect, it } from 'vitest';
import { CanvasBuffers } from './canvas.js';

describe('CanvasBuffers', () => {
  it('hands a buffer given back to the next take of its size, and only of its size', () => {
    const pool = new CanvasBuffers(1_000);
    const first = pool.take(300);
    pool.give(first);
    expect(pool.bytes).toBe(300);
    const other = pool.take(200);
    expect(other).not.toBe(first);
    expect(other.length).toBe(200);
    expect(pool.take(300)).toBe(first);
    expect(pool.bytes).toBe(0);
    expect(pool.take(300)).not.toBe(first);
  });

  it.each([
    ['within the cap', [400, 400], 800],
    ['past the cap: the last is left to the GC', [400, 400, 400], 800],
    ['larger than the cap', [1_200], 0],
  ] as const)('keeps what fits: %s', (_, sizes, held) => {
    const pool = new CanvasBuffers(1_000);
    const taken = sizes.map((size) => pool.take(size));
    for (const buffer of taken) pool.give(buffer);
    expect(pool.bytes).toBe(held);
  });

  it('refuses a view of a larger allocation', () => {
    const pool = new CanvasBuffers(1_000);
    const whole = Buffer.allocUnsafeSlow(400);
    pool.give(whole.subarray(0, 200));
    pool.give(whole.subarray(200));
    expect(pool.bytes).toBe(0);
  });
});
