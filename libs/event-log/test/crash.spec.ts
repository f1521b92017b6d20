import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { afterEach, describe, expect, it } from 'vitest';
import { positionKey, startProjector } from '../src/index.js';
import { collect, testEvent } from '../src/testing/index.js';
import { applySeen, JournalProjectionStore, type SeenDoc } from './fixtures/journal-store.js';
import { openLog, tempDir } from './support.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

interface ChildRun {
  lines: string[];
  stderr: string;
  killed: boolean;
}

/** Runs the crash child on the TypeScript sources and SIGKILLs it once `enough` says so. */
function runAndKill(args: string[], enough: (lines: string[]) => boolean): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        pathToFileURL(join(fixtures, 'swc-register.mjs')).href,
        join(fixtures, 'crash-child.ts'),
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const lines: string[] = [];
    let partial = '';
    let stderr = '';
    let killed = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      lines.push(...parts);
      if (!killed && enough(lines)) killed = child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', () => resolve({ lines, stderr, killed }));
  });
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('FileEventLog under kill -9', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function newDir(): Promise<string> {
    const dir = await tempDir('thumbforge-crash-');
    dirs.push(dir);
    return dir;
  }

  async function seed(dir: string, topic: string, count: number): Promise<void> {
    const log = await openLog(dir, { fsync: 'never' });
    for (let i = 0; i < count; i += 100) {
      await log.append(
        topic,
        range(i, Math.min(count, i + 100)).map((n) => testEvent(n)),
      );
    }
    await log.close();
  }

  it('keeps every acknowledged append, whole, and nothing half-written', async () => {
    const dir = await newDir();
    const topic = 'crash.appends';
    let acknowledged = 0;
    const run = await runAndKill(['append', dir, topic], (lines) => {
      acknowledged = lines.length;
      return acknowledged >= 300;
    });
    expect(run.killed, run.stderr).toBe(true);
    const acks = run.lines
      .filter((line) => line.startsWith('ack '))
      .flatMap((line) => JSON.parse(line.slice(4)) as Array<[number, string]>);
    expect(acks.length).toBeGreaterThanOrEqual(300);

    const log = await openLog(dir);
    const events = await collect(log.read(topic));
    expect(events.map((e) => e.offset)).toEqual(range(0, events.length));
    const byOffset = new Map(events.map((e) => [e.offset, e]));
    for (const [offset, id] of acks) expect(byOffset.get(offset)?.id).toBe(id);

    // Every append that survived is complete: its events are all there, contiguous and in order.
    const appends = new Map<string, number[]>();
    for (const event of events) {
      const { writer, seq, k, size } = event.payload as {
        writer: number;
        seq: number;
        k: number;
        size: number;
      };
      const key = `${writer}/${seq}`;
      appends.set(key, [...(appends.get(key) ?? []), k]);
      expect(size).toBe(1 + ((writer + seq) % 3));
    }
    for (const [key, ks] of appends) {
      const [writer, seq] = key.split('/').map(Number);
      expect(ks, key).toEqual(range(0, 1 + ((writer + seq) % 3)));
    }

    const [next] = await log.append(topic, [testEvent(-1)]);
    expect(next.offset).toBe(events.length);
    await log.close();
  });

  it('resumes a committed consumer without skipping an event', async () => {
    const dir = await newDir();
    const topic = 'crash.consume';
    const total = 3000;
    await seed(dir, topic, total);
    const record = join(dir, 'handled.txt');
    const run = await runAndKill(['consume', dir, topic, record], (lines) => lines.length >= 1000);
    expect(run.killed, run.stderr).toBe(true);

    const handledBefore = (await readFile(record, 'utf8')).split('\n').filter(Boolean).map(Number);
    expect(handledBefore.length).toBeGreaterThanOrEqual(1000);
    expect(handledBefore).toEqual(range(0, handledBefore.length));
    const committedFile = join(dir, 'groups', 'crash-consumer.json');
    const committed = ((
      JSON.parse(await readFile(committedFile, 'utf8').catch(() => '{}')) as Record<string, number>
    )[positionKey(topic)] ?? 0) as number;
    // Never ahead of the handler's completed work.
    expect(committed).toBeLessThanOrEqual(handledBefore.length);

    const log = await openLog(dir);
    const handledAfter: number[] = [];
    const sub = await log.subscribe({
      group: 'crash-consumer',
      topics: [topic],
      from: 'committed',
      handle: async (event) => {
        handledAfter.push(event.offset);
      },
    });
    await sub.caughtUp;
    await log.close();
    expect(handledAfter).toEqual(range(committed, total));
  });

  it('applies every event exactly once through startProjector into a store that persists', async () => {
    const dir = await newDir();
    const topic = 'crash.project';
    const total = 3000;
    await seed(dir, topic, total);
    const journal = join(dir, 'projection.jsonl');
    const run = await runAndKill(['project', dir, topic, journal], (lines) => lines.length >= 1000);
    expect(run.killed, run.stderr).toBe(true);

    const store = await JournalProjectionStore.load(journal);
    const before = (await store.positions('crash'))[positionKey(topic)] ?? 0;
    expect(before).toBeLessThanOrEqual(run.lines.length);
    const log = await openLog(dir);
    let appliedNow = 0;
    const sub = await startProjector({
      log,
      store,
      name: 'crash',
      topics: [topic],
      apply: async (event, target) => {
        appliedNow++;
        await applySeen(event, target);
      },
    });
    await sub.caughtUp;
    await sub.close();
    await log.close();

    expect(appliedNow).toBe(total - before);
    const seen = await store
      .collection<SeenDoc>('seen')
      .find({}, { sort: { field: 'offset', direction: 'asc' } });
    expect(seen.map((doc) => doc.offset)).toEqual(range(0, total));
    expect(seen.filter((doc) => doc.applied !== 1)).toEqual([]);
    expect(await store.positions('crash')).toEqual({ [positionKey(topic)]: total });

    // The same projection over a store that does not persist simply replays everything.
    const replayLog = await openLog(dir);
    const memory = new MemoryProjectionStore();
    const replay = await startProjector({
      log: replayLog,
      store: memory,
      name: 'crash',
      topics: [topic],
      apply: applySeen,
    });
    await replay.caughtUp;
    await replayLog.close();
    expect(await memory.collection('seen').count()).toBe(total);
  });
});
