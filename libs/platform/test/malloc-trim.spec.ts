import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadMallocTrim, MALLOC_TRIM_ADDON, startMallocTrim, type Trim } from '../src/memory/malloc-trim.js';

function recordingLogger() {
  const lines: { level: string; fields: object; message: string }[] = [];
  return {
    lines,
    info: (fields: object, message: string) => void lines.push({ level: 'info', fields, message }),
    warn: (fields: object, message: string) => void lines.push({ level: 'warn', fields, message }),
  };
}

/** A trim that resolves when told to, counting its calls. */
function manualTrim() {
  const pending: ((released: boolean) => void)[] = [];
  const trim = vi.fn<Trim>(() => new Promise<boolean>((resolve) => pending.push(resolve)));
  return { trim, finish: () => pending.shift()?.(true) };
}

describe('startMallocTrim', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('trims once per interval, never two at a time, and stops', async () => {
    vi.useFakeTimers();
    const { trim, finish } = manualTrim();
    const logger = recordingLogger();
    const trimming = startMallocTrim(1_000, logger, trim);
    expect(logger.lines).toEqual([
      { level: 'info', fields: { intervalMs: 1_000 }, message: 'trimming malloc arenas' },
    ]);

    await vi.advanceTimersByTimeAsync(999);
    expect(trim).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(trim).toHaveBeenCalledTimes(1);
    // Still running: the next ticks skip.
    await vi.advanceTimersByTimeAsync(3_000);
    expect(trim).toHaveBeenCalledTimes(1);
    finish();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(trim).toHaveBeenCalledTimes(2);

    trimming.stop();
    finish();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(trim).toHaveBeenCalledTimes(2);
  });

  it('says once that trimming failed and goes on trimming', async () => {
    vi.useFakeTimers();
    const trim = vi.fn<Trim>(() => Promise.reject(new Error('cancelled')));
    const logger = recordingLogger();
    const trimming = startMallocTrim(100, logger, trim);
    await vi.advanceTimersByTimeAsync(350);
    trimming.stop();
    expect(trim).toHaveBeenCalledTimes(3);
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    expect(logger.lines[1]).toMatchObject({ level: 'warn', message: 'trimming malloc arenas failed' });
  });

  it('does nothing at interval 0, and warns with the reason when the addon is missing', async () => {
    vi.useFakeTimers();
    const trim = vi.fn<Trim>(() => Promise.resolve(true));
    const quiet = recordingLogger();
    startMallocTrim(0, quiet, trim).stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(trim).not.toHaveBeenCalled();
    expect(quiet.lines).toEqual([]);

    const missing = loadMallocTrim('/nonexistent/malloc-trim.node');
    expect(missing).toEqual({ unavailable: '/nonexistent/malloc-trim.node was not built' });
    const logger = recordingLogger();
    startMallocTrim(1_000, logger, missing).stop();
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        fields: { reason: '/nonexistent/malloc-trim.node was not built' },
        message: 'malloc arenas are not trimmed',
      },
    ]);
  });
});

// The build compiles the addon wherever Linux, glibc and a C compiler are, as on the machines the
// suite runs on; a build that skipped it fails here rather than passing without it.
describe.runIf(process.platform === 'linux')('the malloc_trim addon', () => {
  it('is built and loads', () => {
    expect(typeof loadMallocTrim()).toBe('function');
  });

  it("gives the freed pages inside glibc's main arena back", () => {
    // A child of its own: its main arena holds nothing but what it allocates here. Every other
    // block of 64 KiB is freed, so no free stretch reaches the arena's top, which glibc trims itself.
    const script = `
      const { readFileSync } = require('node:fs');
      const { trim } = require(${JSON.stringify(MALLOC_TRIM_ADDON)});
      const heapKb = () => Number(/^[0-9a-f]+-[0-9a-f]+ [^\\n]*\\[heap\\]\\n(?:[^\\n]*\\n)*?Rss:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/smaps', 'utf8'))[1]);
      let blocks = Array.from({ length: 1024 }, () => Buffer.allocUnsafeSlow(64 * 1024).fill(1));
      blocks = blocks.filter((_, i) => i % 2 === 0);
      globalThis.gc();
      setTimeout(async () => {
        const before = heapKb();
        const released = await trim();
        console.log(JSON.stringify({ before, after: heapKb(), released, kept: blocks.length }));
      }, 200);
    `;
    const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '1048576', MALLOC_ARENA_MAX: '2' },
    });
    expect(child.stderr).toBe('');
    const { before, after, released } = JSON.parse(child.stdout) as Record<string, number | boolean>;
    expect(released).toBe(true);
    // 512 blocks of 64 KiB were freed: 32 MiB, all but the blocks' edges in whole pages.
    expect(before as number).toBeGreaterThan(60 * 1024);
    expect((before as number) - (after as number)).toBeGreaterThan(24 * 1024);
  });
});
