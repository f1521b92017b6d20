import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Gives the free pages inside malloc's arenas back to the kernel; true when it released any. */
export type Trim = () => Promise<boolean>;

/** Where `scripts/build-native.mjs` puts the addon: the same path from `src/memory` and `dist/memory`. */
export const MALLOC_TRIM_ADDON = fileURLToPath(
  new URL('../../dist/native/malloc-trim.node', import.meta.url),
);

/** The addon's `trim`, or why there is none (not built here: no compiler, no glibc, not Linux). */
export function loadMallocTrim(path = MALLOC_TRIM_ADDON): Trim | { unavailable: string } {
  if (!existsSync(path)) return { unavailable: `${path} was not built` };
  try {
    const addon = createRequire(import.meta.url)(path) as { trim: Trim };
    return addon.trim;
  } catch (error) {
    return { unavailable: `${path} does not load: ${(error as Error).message}` };
  }
}

/** What trimming says: once when it starts, or why it does not, and a first failure. */
export interface TrimLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface MallocTrimming {
  stop(): void;
}

/**
 * Trims malloc's arenas every `intervalMs` (0: never), one trim at a time, on libuv's thread pool.
 * glibc gives memory back by itself only from the top of an arena, so a render process's RSS keeps
 * the high-water mark of the buffers its renders freed: 10–20 MB in embedded mode (docs/architecture.md,
 * "Memory"). The timer does not keep the process alive.
 */
export function startMallocTrim(
  intervalMs: number,
  logger: TrimLogger,
  trim: Trim | { unavailable: string } = loadMallocTrim(),
): MallocTrimming {
  if (intervalMs === 0) return { stop: () => undefined };
  if (typeof trim !== 'function') {
    logger.warn({ reason: trim.unavailable }, 'malloc arenas are not trimmed');
    return { stop: () => undefined };
  }
  let running = false;
  let failed = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    trim()
      .catch((error: unknown) => {
        // Once is enough to say: the next trims run anyway.
        if (!failed) logger.warn({ err: error }, 'trimming malloc arenas failed');
        failed = true;
      })
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  logger.info({ intervalMs }, 'trimming malloc arenas');
  return { stop: () => clearInterval(timer) };
}
