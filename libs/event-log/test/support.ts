import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileEventLog, type FileEventLogOptions } from '../src/index.js';
import type { EventLogContext } from '../src/testing/index.js';

export async function tempDir(prefix = 'thumbforge-log-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function openLog(
  dir: string,
  options: Partial<FileEventLogOptions> = {},
): Promise<FileEventLog> {
  const log = new FileEventLog({
    dir,
    fsync: 'always',
    retryDelayMs: () => 5,
    onError: () => undefined,
    ...options,
  });
  await log.open();
  return log;
}

/** A FileEventLog in a fresh directory, reopenable, removed afterwards. */
export async function makeFileLog(options: Partial<FileEventLogOptions> = {}): Promise<EventLogContext> {
  const dir = await tempDir();
  const opened: FileEventLog[] = [];
  const next = async () => {
    const log = await openLog(dir, options);
    opened.push(log);
    return log;
  };
  return {
    log: await next(),
    reopen: async () => {
      await opened.at(-1)!.close();
      return next();
    },
    cleanup: async () => {
      for (const log of opened) await log.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
