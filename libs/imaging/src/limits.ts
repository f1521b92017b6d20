import sharp from 'sharp';

/**
 * Bounds libvips' memory in a process that renders. Its operation cache keeps recent images for reuse,
 * but every render starts from fresh pixels, so it only holds memory (about 50 MB measured). Each
 * operation gets one thread: a process runs several renders at once instead (RENDER_CONCURRENCY),
 * which keeps glibc's per-thread arenas, and with them RSS, bounded too.
 */
export function boundImageMemory(): void {
  sharp.cache(false);
  sharp.concurrency(1);
}
