import { open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Makes a directory's new or renamed entries durable. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replaces `file` with `data` so a reader sees the old content or the new one, never a mix. */
export async function writeFileAtomic(file: string, data: string | Buffer, durable: boolean): Promise<void> {
  const tmp = `${file}.tmp`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(data);
    if (durable) await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
  if (durable) await syncDir(dirname(file));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const heldHere = new Set<string>();

/**
 * One owner at a time per log directory: two writers would interleave records. A lock left by a
 * process that died (the crash case) is taken over, even when a restart reuses its pid (containers).
 */
export async function acquireLock(file: string): Promise<() => Promise<void>> {
  if (heldHere.has(file)) throw new Error(`event log directory is already open in this process (${file})`);
  heldHere.add(file);
  try {
    await createLockFile(file);
  } catch (error) {
    heldHere.delete(file);
    throw error;
  }
  return async () => {
    heldHere.delete(file);
    await unlink(file);
  };
}

async function createLockFile(file: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isRunning(owner)) {
        throw new Error(`event log directory is in use by process ${owner} (${file})`, { cause: error });
      }
      await unlink(file).catch(() => undefined);
    }
  }
  throw new Error(`could not lock the event log directory (${file})`);
}
