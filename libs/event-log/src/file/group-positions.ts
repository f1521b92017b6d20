import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogPositions } from '../port.js';
import { writeFileAtomic } from './fs-util.js';

export function groupFile(groupsDir: string, group: string): string {
  return join(groupsDir, `${encodeURIComponent(group)}.json`);
}

export async function readGroupPositions(file: string): Promise<LogPositions> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`committed positions in ${file} are not an object`);
  }
  return parsed as LogPositions;
}

/**
 * A consumer group's committed positions. Commits are batched: while one atomic write is in flight,
 * later advances only update memory and the next write carries them all. A position is only ever
 * advanced after the handler finished the event before it, so the file is never ahead of the work.
 */
export class GroupCommitter {
  private dirty = false;
  private writing = false;
  private done: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly file: string,
    private readonly durable: boolean,
    private readonly positions: LogPositions,
    private readonly onError: (error: unknown) => void,
  ) {}

  position(key: string): number {
    return this.positions[key] ?? 0;
  }

  advance(key: string, next: number): void {
    this.positions[key] = next;
    this.dirty = true;
    this.schedule();
  }

  /** Resolves when everything advanced so far is on disk. */
  async flush(): Promise<void> {
    this.schedule();
    await this.done;
    if (this.dirty) throw this.failure;
  }

  private schedule(): void {
    if (this.writing || !this.dirty) return;
    this.writing = true;
    this.done = this.write();
  }

  private async write(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        await writeFileAtomic(this.file, JSON.stringify(this.positions), this.durable).catch(
          (error: unknown) => {
            this.dirty = true;
            throw error;
          },
        );
      }
      this.failure = undefined;
    } catch (error) {
      this.failure = error;
      this.onError(error);
    } finally {
      this.writing = false;
    }
  }
}
