import sharp from 'sharp';

/** libvips' operation cache: results of recent operations, kept by default up to 50 MB and 100 items. */
export const LIBVIPS_CACHE = { memory: 32, files: 0, items: 64 } as const;

/**
 * Bounds libvips for a process that only checks uploads (the gateway): a small operation cache, and one
 * thread per core at most so concurrent requests queue on libuv's pool instead of multiplying libvips'
 * per-thread buffers.
 */
export function boundLibvips(cores: number): void {
  sharp.cache(LIBVIPS_CACHE);
  sharp.concurrency(Math.max(1, Math.min(cores, 4)));
}

/**
 * Bounds libvips in a process that renders. The operation cache keeps recent images for reuse, but
 * every render starts from fresh pixels, so it only holds memory (about 50 MB measured). Each operation
 * gets one thread: the process runs several renders at once instead (RENDER_CONCURRENCY), which keeps
 * glibc's per-thread arenas, and with them RSS, bounded too.
 */
export function boundLibvipsForRendering(): void {
  sharp.cache(false);
  sharp.concurrency(1);
}
