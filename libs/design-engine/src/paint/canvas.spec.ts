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
    ['within the cap', [400, 400], [400, 400]],
    ['past the cap: the oldest is left to the GC', [400, 300, 500], [300, 500]],
    ['a newer size pushes out an older one', [600, 500], [500]],
    ['larger than the cap', [1_200], []],
  ] as const)('keeps the newest that fit: %s', (_, sizes, kept) => {
    const pool = new CanvasBuffers(1_000);
    const taken = sizes.map((size) => pool.take(size));
    for (const buffer of taken) pool.give(buffer);
    expect(pool.bytes).toBe(kept.reduce((sum, size) => sum + size, 0));
    const reused = sizes.map((size) => pool.take(size)).filter((buffer) => taken.includes(buffer));
    expect(reused.map((buffer) => buffer.length)).toEqual(kept);
    expect(pool.bytes).toBe(0);
  });

  it('hands out the most recently given buffer of a size first', () => {
    const pool = new CanvasBuffers(1_000);
    const [older, newer] = [pool.take(300), pool.take(300)];
    pool.give(older);
    pool.give(newer);
    expect(pool.take(300)).toBe(newer);
    expect(pool.take(300)).toBe(older);
  });

  it('drops the oldest idle buffers when its cap shrinks', () => {
    const pool = new CanvasBuffers(1_000);
    const [older, newer] = [pool.take(400), pool.take(400)];
    pool.give(older);
    pool.give(newer);
    pool.resize(500);
    expect(pool.bytes).toBe(400);
    expect(pool.take(400)).toBe(newer);
    expect(pool.take(400)).not.toBe(older);
  });

  it('refuses a view of a larger allocation', () => {
    const pool = new CanvasBuffers(1_000);
    const whole = Buffer.allocUnsafeSlow(400);
    pool.give(whole.subarray(0, 200));
    pool.give(whole.subarray(200));
    expect(pool.bytes).toBe(0);
  });
});
