import type { LruCache } from './lru.js';

/** A render given up by its caller (its timeout, usually): thrown at the next checkpoint. */
export class RenderAborted extends Error {
  override readonly name = 'RenderAborted';
  constructor(readonly reason: unknown) {
    super('The render was aborted');
  }
}

/**
 * Between stages and before each large allocation: libvips cannot stop an operation half-way, so a
 * render stops at the next of these and what it drew so far becomes garbage.
 */
export function checkpoint(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RenderAborted(signal.reason);
}

/**
 * A cached piece of work that concurrent renders share. The render that starts it passes its own
 * signal; when that render is aborted, the others start it again rather than fail with it.
 */
export async function shared<T>(
  cache: LruCache<Promise<T>>,
  key: string,
  cost: number,
  make: () => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  for (;;) {
    checkpoint(signal);
    let entry = cache.get(key);
    if (!entry) {
      const made = make();
      entry = made;
      cache.set(key, made, cost);
      made.catch(() => {
        if (cache.get(key) === made) cache.delete(key);
      });
    }
    try {
      return await entry;
    } catch (error) {
      if (!(error instanceof RenderAborted) || signal?.aborted) throw error;
    }
  }
}
