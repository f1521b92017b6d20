import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommitter } from '../src/file/group-positions.js';
import { tempDir } from './support.js';

/** Lets real file-system work run for a while: many round trips to libuv's threads. */
async function realIo(rounds: number, file: string): Promise<void> {
  for (let i = 0; i < rounds; i++) await readFile(file).catch(() => undefined);
}

/** Waits, through real I/O rather than timers (they are fake), until `done` holds or 2,000 rounds passed. */
async function until(done: () => Promise<boolean>, file: string): Promise<void> {
  for (let i = 0; i < 2_000 && !(await done()); i++) await realIo(1, file);
}

describe('GroupCommitter', () => {
  let dir: string | undefined;

  afterEach(async () => {
    vi.useRealTimers();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes a busy group once per interval: what advances during a write waits for the next one', async () => {
    // Only the interval's timer is faked: the writes themselves are real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    dir = await tempDir();
    const file = join(dir, 'g.json');
    const onDisk = async () =>
      JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Record<string, number>;
    const errors: unknown[] = [];
    const committer = new GroupCommitter(file, true, {}, (error) => errors.push(error), 1_000);

    committer.advance('t:0', 1);
    await realIo(20, file);
    expect(await onDisk()).toEqual({});

    vi.advanceTimersByTime(1_000);
    // The write has started; this advance comes while it is in flight.
    committer.advance('t:0', 2);
    await until(async () => (await onDisk())['t:0'] !== undefined, file);
    await realIo(100, file);
    expect(await onDisk()).toEqual({ 't:0': 1 });

    vi.advanceTimersByTime(1_000);
    await until(async () => (await onDisk())['t:0'] === 2, file);
    expect(await onDisk()).toEqual({ 't:0': 2 });

    committer.advance('t:0', 3);
    await committer.flush();
    expect(await onDisk()).toEqual({ 't:0': 3 });
    expect(errors).toEqual([]);
  });

  it('reports a failed write, keeps its positions for the next, and fails a flush that cannot write', async () => {
    dir = await tempDir();
    const file = join(dir, 'missing', 'g.json');
    const errors: unknown[] = [];
    const committer = new GroupCommitter(file, true, {}, (error) => errors.push(error), 0);

    committer.advance('t:0', 4);
    await expect(committer.flush()).rejects.toThrow(/ENOENT/);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(committer.position('t:0')).toBe(4);
  });
});
