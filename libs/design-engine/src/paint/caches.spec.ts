import { afterEach, describe, expect, it } from 'vitest';
import {
  backgroundReads,
  DEFAULT_PIXEL_CACHE_BYTES,
  limitPixelCaches,
  pixelCacheBytes,
  pixelCaches,
} from './caches.js';
import { canvasBuffers } from './canvas.js';

const MB = 1024 * 1024;

/** Lets `turns` turns of the event loop pass (a retired background is given back a macrotask late). */
async function macrotasks(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

afterEach(() => {
  for (const cache of Object.values(pixelCaches)) cache.resize(0);
  limitPixelCaches(DEFAULT_PIXEL_CACHE_BYTES);
});

describe('pixel caches', () => {
  it.each([
    {
      total: 96 * MB,
      backgrounds: Math.floor(38.4 * MB),
      packedBackgrounds: 24 * MB,
      photos: Math.floor(19.2 * MB),
      logos: Math.floor(9.6 * MB),
      emoji: Math.floor(4.8 * MB),
    },
    {
      // A rendering replica's default: room for about 49 youtube sd backgrounds packed (0.34 MB each).
      total: 64 * MB,
      backgrounds: Math.floor(25.6 * MB),
      packedBackgrounds: 16 * MB,
      photos: Math.floor(12.8 * MB),
      logos: Math.floor(6.4 * MB),
      emoji: Math.floor(3.2 * MB),
    },
    {
      total: 10 * MB,
      backgrounds: 4 * MB,
      packedBackgrounds: 2.5 * MB,
      photos: 2 * MB,
      logos: 1 * MB,
      emoji: 0.5 * MB,
    },
  ])('split $total bytes by share', ({ total, ...shares }) => {
    limitPixelCaches(total);
    for (const [name, bytes] of Object.entries(shares)) {
      const cache = pixelCaches[name as keyof typeof pixelCaches];
      cache.set('probe', Promise.resolve(Buffer.alloc(0)) as never, bytes);
      expect(cache.get('probe'), `${name} holds its share`).toBeDefined();
      cache.set('more', Promise.resolve(Buffer.alloc(0)) as never, 1);
      expect(cache.get('probe'), `${name} holds no more than its share`).toBeUndefined();
    }
  });

  it('evict what no longer fits when the budget shrinks', () => {
    limitPixelCaches(100 * MB);
    pixelCaches.backgrounds.set('a', Promise.resolve(Buffer.alloc(0)), 20 * MB);
    pixelCaches.backgrounds.set('b', Promise.resolve(Buffer.alloc(0)), 20 * MB);
    pixelCaches.photos.set('p', Promise.resolve(null as never), 20 * MB);
    expect(pixelCacheBytes()).toBe(60 * MB);
    limitPixelCaches(50 * MB);
    expect(pixelCaches.backgrounds.get('a')).toBeUndefined();
    expect(pixelCaches.backgrounds.get('b')).toBeDefined();
    expect(pixelCaches.photos.get('p')).toBeUndefined();
    expect(pixelCacheBytes()).toBe(20 * MB);
  });

  it("gives an evicted background's pixels to the canvas buffers, a macrotask after they resolve", async () => {
    limitPixelCaches(10 * MB);
    const pixels = Buffer.allocUnsafeSlow(1_000);
    const held = canvasBuffers.bytes;
    pixelCaches.backgrounds.set('a', Promise.resolve(pixels), 4 * MB);
    pixelCaches.backgrounds.set('b', Promise.resolve(Buffer.allocUnsafeSlow(0)), 4 * MB);
    // Renders that took the entry before it went copy from it in these microtasks.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(canvasBuffers.bytes).toBe(held);
    await macrotasks(1);
    expect(canvasBuffers.bytes).toBe(held + 1_000);
    expect(canvasBuffers.take(1_000)).toBe(pixels);
  });

  it('keeps an evicted background being packed until the packing has read it', async () => {
    limitPixelCaches(10 * MB);
    const pixels = Buffer.allocUnsafeSlow(2_000);
    let packed!: () => void;
    backgroundReads.set(pixels, new Promise<void>((resolve) => (packed = resolve)));
    const held = canvasBuffers.bytes;
    pixelCaches.backgrounds.set('a', Promise.resolve(pixels), 4 * MB);
    pixelCaches.backgrounds.set('b', Promise.resolve(Buffer.allocUnsafeSlow(0)), 4 * MB);
    await macrotasks(2);
    expect(canvasBuffers.bytes).toBe(held);
    packed();
    await macrotasks(2);
    expect(canvasBuffers.bytes).toBe(held + 2_000);
    expect(canvasBuffers.take(2_000)).toBe(pixels);
  });
});
