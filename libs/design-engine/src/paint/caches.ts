import { canvasBuffers, type Sprite } from './canvas.js';
import { LruCache } from './lru.js';

/**
 * The engine's pixel caches, bounded together: a background costs tens of milliseconds of librsvg to
 * draw and a render copies a cached one in a fraction of one, but each sd background is 2.7 MB of raw
 * pixels, so the budget is what a rendering process's memory grows to. Shares follow reuse: every
 * render has a background, fewer have a photo, a logo or emoji.
 */
export const pixelCaches = {
  backgrounds: new LruCache<Promise<Buffer>>(0, retireBackground),
  /**
   * Backgrounds deflated (about 8× smaller, unpacked in 3 ms where drawing one takes 25 or more): the
   * many a busy process reuses, past the few whose raw pixels fit beside them.
   */
  packedBackgrounds: new LruCache<Buffer>(0),
  photos: new LruCache<Promise<Sprite>>(0),
  logos: new LruCache<Promise<Sprite[]>>(0),
  emoji: new LruCache<Promise<Uint8Array>>(0),
};

/**
 * An evicted background's pixels become the next canvas or background drawn at its size, rather than
 * garbage: dead array buffers are what starts V8's full collections. Not at once: a render that took
 * the entry before it was evicted copies from it in the microtasks after it resolves, so the buffer
 * is given back a macrotask later, once every such copy is done.
 */
function retireBackground(pixels: Promise<Buffer>): void {
  pixels.then(
    async (buffer) => {
      await backgroundReads.get(buffer);
      setImmediate(() => canvasBuffers.give(buffer));
    },
    () => undefined,
  );
}

/** Backgrounds being read off the main thread (packed), by their pixels: given back only after. */
export const backgroundReads = new WeakMap<Buffer, Promise<unknown>>();

/**
 * A packed background takes an eighth of the bytes of a raw one and saves a draw (25 ms or more) where
 * a raw one saves an unpack (3 ms), so packed ones get a quarter: a rendering replica's 64 MiB keeps
 * about 49 youtube sd backgrounds packed (29 at 15 %).
 */
const SHARES: Record<keyof typeof pixelCaches, number> = {
  backgrounds: 0.4,
  packedBackgrounds: 0.25,
  photos: 0.2,
  logos: 0.1,
  emoji: 0.05,
};

/**
 * 96 MiB: 14 youtube sd backgrounds raw and about 70 more packed, with room for the photos, logos and
 * emoji reused beside them.
 */
export const DEFAULT_PIXEL_CACHE_BYTES = 96 * 1024 * 1024;

/** Bounds every pixel cache of the process together to `bytes`, evicting at once if they hold more. */
export function limitPixelCaches(bytes: number): void {
  for (const [name, cache] of Object.entries(pixelCaches)) {
    cache.resize(Math.floor(bytes * SHARES[name as keyof typeof pixelCaches]));
  }
}

/** What the pixel caches hold now, in bytes. */
export function pixelCacheBytes(): number {
  return Object.values(pixelCaches).reduce((sum, cache) => sum + cache.cost, 0);
}

limitPixelCaches(DEFAULT_PIXEL_CACHE_BYTES);
