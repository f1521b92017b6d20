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
 * How long advances of a group's positions gather before they are written. Handlers are idempotent
 * and a position may lag the work (never lead it), so a crash only redelivers what the last interval
 * handled; writing each advance instead cost two fsyncs per event per group, on the same disk queue as
 * the log's own appends.
 */
export const DEFAULT_COMMIT_INTERVAL_MS = 1000;

/**
 * A consumer group's committed positions. Commits are batched: advances update memory and one atomic
 * write carries all of them after `intervalMs` (or at once on `flush`). A position is only ever
 * advanced after the handler finished the event before it, so the file is never ahead of the work.
 */
export class GroupCommitter {
  private dirty = false;
  private writing = false;
  private timer: NodeJS.Timeout | undefined;
  private done: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly file: string,
    private readonly durable: boolean,
    private readonly positions: LogPositions,
    private readonly onError: (error: unknown) => void,
    private readonly intervalMs = DEFAULT_COMMIT_INTERVAL_MS,
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
    await this.done;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.startWrite();
    await this.done;
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * The next write, `intervalMs` from now; advances made while a write is in flight wait for the one
   * after it, so a busy group still writes once per interval.
   */
  private schedule(): void {
    if (this.timer || this.writing || !this.dirty) return;
    if (this.intervalMs <= 0) return this.startWrite();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.startWrite();
    }, this.intervalMs);
    // A pending commit must not keep a process alive that has nothing else to do.
    this.timer.unref();
  }

  private startWrite(): void {
    if (this.writing || !this.dirty) return;
    this.writing = true;
    this.done = this.write();
  }

  private async write(): Promise<void> {
    this.dirty = false;
    try {
      await writeFileAtomic(this.file, JSON.stringify(this.positions), this.durable);
      this.failure = undefined;
    } catch (error) {
      // The next write carries these positions too.
      this.dirty = true;
      this.failure = error;
      this.onError(error);
    } finally {
      this.writing = false;
      // After a failure the next advance asks again: a write that keeps failing is not retried in a loop.
      if (this.failure === undefined) this.schedule();
    }
  }
}
