import sharp from 'sharp';

/** libvips' operation cache: results of recent operations, kept by default up to 50 MB and 100 items. */
export const LIBVIPS_CACHE = { memory: 32, files: 0, items: 64 } as const;

/**
 * Bounds libvips for a server process: a small operation cache, and one thread per core at most so
 * concurrent requests queue on libuv's pool instead of multiplying libvips' per-thread buffers.
 */
export function boundLibvips(cores: number): void {
  sharp.cache(LIBVIPS_CACHE);
  sharp.concurrency(Math.max(1, Math.min(cores, 4)));
}
