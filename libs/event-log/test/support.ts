import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileEventLog, type FileEventLogOptions } from '../src/index.js';
import { reopenableLog, type EventLogContext } from '../src/testing/index.js';

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
  return reopenableLog(
    () => openLog(dir, options),
    () => rm(dir, { recursive: true, force: true }),
  );
}
