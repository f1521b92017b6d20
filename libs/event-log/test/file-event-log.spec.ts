import { spawnSync } from 'node:child_process';
import { appendFile, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { CorruptLogError, FileEventLog, positionKey } from '../src/index.js';
import { collect, deferred, testEvent, tick } from '../src/testing/index.js';
import { openLog, tempDir } from './support.js';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

function frame(json: string): Buffer {
  const body = Buffer.from(json);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(body.length, 0);
  header.writeUInt32BE(crc32(body), 4);
  return Buffer.concat([header, body]);
}

function recordStarts(bytes: Buffer): number[] {
  const starts: number[] = [];
  for (let at = 0; at < bytes.length; at += 8 + bytes.readUInt32BE(at)) starts.push(at);
  return starts;
}

describe('FileEventLog', () => {
  const dirs: string[] = [];
  const logs: FileEventLog[] = [];
  afterEach(async () => {
    for (const log of logs.splice(0)) await log.close();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function newDir(): Promise<string> {
    const dir = await tempDir();
    dirs.push(dir);
    return dir;
  }

  async function open(dir: string, options: Parameters<typeof openLog>[1] = {}): Promise<FileEventLog> {
    const log = await openLog(dir, options);
    logs.push(log);
    return log;
  }

  async function segmentsOf(dir: string, topic: string): Promise<string[]> {
    return (await readdir(join(dir, 'topics', topic)))
      .filter((f) => f.endsWith('.seg'))
      .sort()
      .map((f) => join(dir, 'topics', topic, f));
  }

  describe('storage', () => {
    it('keeps events across close and reopen and continues the numbering', async () => {
      const dir = await newDir();
      const first = await open(dir);
      const stored = await first.append(
        'orders',
        range(0, 10).map((n) => testEvent(n)),
      );
      await first.close();
      const second = await open(dir);
      expect(await second.size('orders')).toBe(10);
      expect(await collect(second.read('orders'))).toEqual(stored);
      const [next] = await second.append('orders', [testEvent(10)]);
      expect(next.offset).toBe(10);
    });

    it('rolls segments and reads any offset across them, before and after reopening', async () => {
      const dir = await newDir();
      const log = await open(dir, { segmentBytes: 1024 });
      const stored = [];
      for (let i = 0; i < 200; i += 7)
        stored.push(
          ...(await log.append(
            't',
            range(i, i + 7).map((n) => testEvent(n)),
          )),
        );
      const files = await segmentsOf(dir, 't');
      expect(files.length).toBeGreaterThan(10);
      expect(files[0]).toMatch(/00000000000000000000\.seg$/);
      for (const from of [0, 1, 50, 99, 150, 202, 203]) {
        expect(await collect(log.read('t', { fromOffset: from }))).toEqual(stored.slice(from));
      }
      await log.close();
      const reopened = await open(dir, { segmentBytes: 1024 });
      expect(await collect(reopened.read('t', { fromOffset: 77 }))).toEqual(stored.slice(77));
      expect((await reopened.append('t', [testEvent(999)]))[0].offset).toBe(stored.length);
    });

    it('writes concurrent appends in few batches (group commit)', async () => {
      const log = await open(await newDir());
      const results = await Promise.all(range(0, 100).map((n) => log.append('t', [testEvent(n)])));
      expect(new Set(results.map(([e]) => e.offset)).size).toBe(100);
      const { appends, writes, syncs } = log.stats;
      expect(appends).toBe(100);
      expect(writes).toBeLessThanOrEqual(2);
      expect(syncs).toBe(writes);
    });

    it('does not sync with fsync never', async () => {
      const log = await open(await newDir(), { fsync: 'never' });
      await log.append('t', [testEvent(0)]);
      await log.append('t', [testEvent(1)]);
      expect(log.stats).toEqual({ appends: 2, writes: 2, syncs: 0 });
    });

    it('stores only the envelope: a re-appended stored event gets its new position', async () => {
      const log = await open(await newDir());
      const [original] = await log.append('a', [testEvent(0)]);
      await log.append('b', [testEvent(1)]);
      const [copy] = await log.append('b', [original]);
      expect(copy).toMatchObject({ topic: 'b', partition: 0, offset: 1, id: original.id });
      const [read] = await collect(log.read('b', { fromOffset: 1 }));
      expect(read).toEqual(copy);
    });

    it('refuses invalid topics, oversized events and unknown partitions without disturbing others', async () => {
      const log = await open(await newDir());
      await expect(log.append('../escape', [testEvent(0)])).rejects.toThrow(/invalid topic/);
      await expect(log.append('', [testEvent(0)])).rejects.toThrow(/invalid topic/);
      const huge = testEvent(0, 'agg', { blob: 'x'.repeat(17 * 1024 * 1024) });
      await expect(log.append('t', [huge])).rejects.toThrow(RangeError);
      await expect(collect(log.read('t', { partition: 1 }))).rejects.toThrow(RangeError);
      expect((await log.append('t', [testEvent(1)]))[0].offset).toBe(0);
    });

    it('persists committed positions atomically under groups/', async () => {
      const dir = await newDir();
      const log = await open(dir);
      await log.append(
        't',
        range(0, 5).map((n) => testEvent(n)),
      );
      const sub = await log.subscribe({
        group: 'billing',
        topics: ['t'],
        from: 'committed',
        handle: async () => {},
      });
      await sub.caughtUp;
      await sub.close();
      const files = await readdir(join(dir, 'groups'));
      expect(files).toEqual(['billing.json']);
      expect(JSON.parse(await readFile(join(dir, 'groups', 'billing.json'), 'utf8'))).toEqual({
        [positionKey('t')]: 5,
      });
    });

    it('never commits past the event in flight', async () => {
      const dir = await newDir();
      const log = await open(dir);
      await log.append(
        't',
        range(0, 5).map((n) => testEvent(n)),
      );
      const entered = deferred();
      const gate = deferred();
      const sub = await log.subscribe({
        group: 'g',
        topics: ['t'],
        from: 'committed',
        handle: async (event) => {
          if (event.offset !== 3) return;
          entered.resolve();
          await gate.promise;
        },
      });
      await entered.promise;
      await tick(50);
      const file = join(dir, 'groups', 'g.json');
      const committed = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Record<string, number>;
      expect(committed[positionKey('t')] ?? 0).toBeLessThanOrEqual(3);
      gate.resolve();
      await sub.waitFor('t', 4);
      await sub.close();
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ [positionKey('t')]: 5 });
    });

    it('refuses a second committed subscription of a group on the same topic', async () => {
      const log = await open(await newDir());
      const sub = await log.subscribe({
        group: 'g',
        topics: ['t'],
        from: 'committed',
        handle: async () => {},
      });
      await expect(
        log.subscribe({ group: 'g', topics: ['t', 'u'], from: 'committed', handle: async () => {} }),
      ).rejects.toThrow(/already has a committed subscription/);
      const other = await log.subscribe({
        group: 'g',
        topics: ['u'],
        from: 'committed',
        handle: async () => {},
      });
      await Promise.all([sub.close(), other.close()]);
    });

    it('treats a handler that throws synchronously like one that rejects', async () => {
      const errors: string[] = [];
      const log = await open(await newDir(), { onError: (_e, context) => errors.push(context) });
      await log.append('t', [testEvent(0), testEvent(1)]);
      let calls = 0;
      const sub = await log.subscribe({
        group: 'g',
        topics: ['t'],
        from: 'beginning',
        maxAttempts: 2,
        handle: (event) => {
          calls++;
          if (event.offset === 0) throw new Error('sync failure');
          return Promise.resolve();
        },
      });
      await sub.waitFor('t', 1);
      expect(calls).toBe(3);
      expect(errors).toEqual([expect.stringContaining('moved it to thumbforge.dead-letter')]);
      await sub.close();
    });

    it('hands a consumer that keeps up the newest events from memory and one that lags from disk, alike', async () => {
      const dir = await newDir();
      const log = await open(dir, { fsync: 'never' });
      const follow = async (group: string) => {
        const seen: unknown[] = [];
        const sub = await log.subscribe({
          group,
          topics: ['t'],
          from: 'beginning',
          handle: async (event) => void seen.push(event),
        });
        return { seen, sub };
      };
      const { seen: live, sub: liveSub } = await follow('live');
      // About 2 KB each: 1,500 events are three times the bytes kept in memory.
      const filler = 'x'.repeat(2000);
      for (let from = 0; from < 1500; from += 50) {
        await log.append(
          't',
          range(from, from + 50).map((n) => testEvent(n, 'agg_1', { filler })),
        );
      }
      await liveSub.waitFor('t', 1499);
      const { seen: late, sub: lateSub } = await follow('late');
      await lateSub.waitFor('t', 1499);
      await liveSub.close();
      await lateSub.close();
      await log.close();
      const fromDisk = await collect((await open(dir)).read('t'));
      expect(fromDisk.map((e) => e.offset)).toEqual(range(0, 1500));
      expect(fromDisk.map((e) => (e.payload as { n: number }).n)).toEqual(range(0, 1500));
      expect(live).toEqual(fromDisk);
      expect(late).toEqual(fromDisk);
    });

    it('leaves the unread payload fields out of the reads its worker thread checks, before decoding them', async () => {
      const dir = await newDir();
      const writer = await open(dir, { segmentBytes: 512 });
      const stored = await writer.append(
        't',
        range(0, 12).map((n) => ({ ...testEvent(n), type: n % 3 === 0 ? 'a.large' : 'b.small' })),
      );
      await writer.close();
      // Reopened: no bytes are kept in memory, every batch is read from disk by the worker.
      const log = await open(dir, { segmentBytes: 512, scanInWorkerFrom: 0 });
      const read = await collect(log.read('t', { unread: { 'a.large': ['nested', 'text'] } }));
      const cut = ({ nested: _nested, text: _text, ...payload }: Record<string, unknown>) => payload;
      expect(read).toEqual(
        stored.map((e) =>
          e.type === 'a.large' ? { ...e, payload: cut(e.payload as Record<string, unknown>) } : e,
        ),
      );
      expect(read.filter((e) => 'nested' in (e.payload as object)).map((e) => e.type)).toEqual(
        Array(8).fill('b.small'),
      );
      // The cut was in the read's own bytes: the log holds the events whole.
      expect(await collect(log.read('t'))).toEqual(stored);
      await log.close();
    });

    it("commits a group's positions once per interval, and what is left on close", async () => {
      const dir = await newDir();
      const groupFile = join(dir, 'groups', 'g.json');
      const positions = () =>
        readFile(groupFile, 'utf8').then(
          (text) => JSON.parse(text) as Record<string, number>,
          (): Record<string, number> => ({}),
        );
      const log = await open(dir, { commitIntervalMs: 600_000 });
      const sub = await log.subscribe({
        group: 'g',
        topics: ['t'],
        from: 'committed',
        handle: async () => {},
      });
      await log.append('t', [testEvent(0), testEvent(1)]);
      await sub.waitFor('t', 1);
      await tick(50);
      expect(await positions()).toEqual({});
      await log.close();
      expect(await positions()).toEqual({ [positionKey('t')]: 2 });

      const eager = await open(dir, { commitIntervalMs: 0 });
      const again = await eager.subscribe({
        group: 'g',
        topics: ['t'],
        from: 'committed',
        handle: async () => {},
      });
      await eager.append('t', [testEvent(2)]);
      await again.waitFor('t', 2);
      for (let i = 0; i < 200 && (await positions())[positionKey('t')] !== 3; i++) await tick(10);
      expect(await positions()).toEqual({ [positionKey('t')]: 3 });
    });

    it('fails ping and refuses work once closed', async () => {
      const log = await open(await newDir());
      await log.ping();
      await log.close();
      await expect(log.ping()).rejects.toThrow(/closed/);
      await expect(log.size('t')).rejects.toThrow(/closed/);
      await expect(
        log.subscribe({ group: 'g', topics: ['t'], from: 'end', handle: async () => {} }),
      ).rejects.toThrow();
      await expect(log.open()).rejects.toThrow();
    });
  });

  describe('one owner per directory', () => {
    it('refuses to open a directory that is already open', async () => {
      const dir = await newDir();
      const log = await open(dir);
      await expect(new FileEventLog({ dir, fsync: 'never' }).open()).rejects.toThrow(/already open/);
      await log.close();
      await open(dir);
    });

    it('takes over the lock of a process that died', async () => {
      const dir = await newDir();
      const dead = spawnSync(process.execPath, ['-e', '']).pid;
      await writeFile(join(dir, 'LOCK'), String(dead));
      const log = await open(dir);
      expect(await readFile(join(dir, 'LOCK'), 'utf8')).toBe(String(process.pid));
      await log.close();
    });
  });

  describe('recovery on open', () => {
    async function seeded(count: number, options: Parameters<typeof openLog>[1] = {}) {
      const dir = await newDir();
      const log = await openLog(dir, options);
      const stored = [];
      for (const n of range(0, count)) stored.push(...(await log.append('t', [testEvent(n)])));
      await log.close();
      const [last] = (await segmentsOf(dir, 't')).slice(-1);
      return { dir, stored, last, size: (await stat(last)).size };
    }

    it('truncates garbage after the last record and keeps everything before it', async () => {
      const { dir, stored, last, size } = await seeded(5);
      await appendFile(last, Buffer.from('\x00\x00\x01\x00garbage that is not a record'));
      const log = await open(dir);
      expect(await collect(log.read('t'))).toEqual(stored);
      expect((await stat(last)).size).toBe(size);
      expect(log.recovered).toEqual([expect.objectContaining({ topic: 't', droppedBytes: 32 })]);
      const [next] = await log.append('t', [testEvent(5)]);
      expect(next.offset).toBe(5);
      await log.close();
      expect(await collect((await open(dir)).read('t'))).toEqual([...stored, next]);
    });

    it('drops a torn record and the complete-looking record written after it', async () => {
      const { dir, stored, last, size } = await seeded(3);
      const torn = frame(JSON.stringify(testEvent(3))).subarray(0, 40);
      const after = frame(JSON.stringify(testEvent(4)));
      await appendFile(last, Buffer.concat([torn, after]));
      const log = await open(dir);
      expect(await log.size('t')).toBe(3);
      expect(await collect(log.read('t'))).toEqual(stored);
      expect((await stat(last)).size).toBe(size);
    });

    it('drops a last record whose checksum does not match', async () => {
      const { dir, stored, last } = await seeded(3);
      const bytes = await readFile(last);
      bytes[bytes.length - 3] ^= 0xff;
      await writeFile(last, bytes);
      const log = await open(dir);
      expect(await collect(log.read('t'))).toEqual(stored.slice(0, 2));
      expect(log.recovered[0].reason).toBe('checksum mismatch');
    });

    it('drops a zero-filled tail', async () => {
      const { dir, stored, last } = await seeded(2);
      await appendFile(last, Buffer.alloc(4096));
      const log = await open(dir);
      expect(await collect(log.read('t'))).toEqual(stored);
    });

    it('drops an append that was only partly written, keeping it all or nothing', async () => {
      const dir = await newDir();
      const log = await openLog(dir);
      const kept = await log.append('t', [testEvent(0), testEvent(1)]);
      await log.append('t', [testEvent(2), testEvent(3), testEvent(4)]);
      await log.close();
      const [segment] = await segmentsOf(dir, 't');
      const starts = recordStarts(await readFile(segment));
      expect(starts).toHaveLength(5);
      // Cut exactly after the batch's second record: no torn bytes, but the append is incomplete.
      await truncate(segment, starts[4]);
      const reopened = await open(dir);
      expect(await collect(reopened.read('t'))).toEqual(kept);
      expect(reopened.recovered).toEqual([
        expect.objectContaining({ reason: expect.stringContaining('2 record(s)') }),
      ]);
      expect((await reopened.append('t', [testEvent(9)]))[0].offset).toBe(2);
    });

    it('refuses to open when a record before the tail is corrupt and its segment has no index', async () => {
      const dir = await newDir();
      const log = await openLog(dir, { segmentBytes: 512 });
      await log.append(
        't',
        range(0, 20).map((n) => testEvent(n)),
      );
      for (let i = 0; i < 5; i++) await log.append('t', [testEvent(20 + i)]);
      await log.close();
      const [first] = await segmentsOf(dir, 't');
      await rm(first.replace(/\.seg$/, '.idx'));
      const bytes = await readFile(first);
      bytes[20] ^= 0xff;
      await writeFile(first, bytes);
      await expect(openLog(dir)).rejects.toThrow(CorruptLogError);
      // The failed open released the directory.
      await expect(openLog(dir)).rejects.toThrow(CorruptLogError);
    });

    it('indexes sealed segments: opening reads the index, a damaged or stale one is scanned instead, a corrupt record fails its read', async () => {
      const dir = await newDir();
      const log = await openLog(dir, { segmentBytes: 512 });
      const stored = [];
      for (let i = 0; i < 30; i++) stored.push(...(await log.append('t', [testEvent(i)])));
      await log.close();
      const segments = await segmentsOf(dir, 't');
      const indexes = (await readdir(join(dir, 'topics', 't'))).filter((f) => f.endsWith('.idx'));
      // Every segment but the last, which is still appended to.
      expect(indexes.sort()).toEqual(
        segments.slice(0, -1).map((f) => f.split('/').at(-1)!.replace('.seg', '.idx')),
      );

      const reopened = await openLog(dir, { segmentBytes: 512 });
      expect(await collect(reopened.read('t'))).toEqual(stored);
      await reopened.close();

      // A damaged index, another segment's and one that is not an index are all ignored.
      const [first, second, third] = segments;
      const indexOf = (segment: string) => segment.replace(/\.seg$/, '.idx');
      const damaged = await readFile(indexOf(first));
      await writeFile(indexOf(second), damaged);
      damaged[damaged.length - 1] ^= 0xff;
      await writeFile(indexOf(first), damaged);
      await writeFile(indexOf(third), 'not an index');
      const rescanned = await openLog(dir, { segmentBytes: 512 });
      expect(await collect(rescanned.read('t'))).toEqual(stored);
      await rescanned.close();
      // Scanned whole, each got a fresh index.
      expect(await readFile(indexOf(first))).not.toEqual(damaged);
      expect((await readFile(indexOf(third))).length).toBeGreaterThan(24);

      // Trusted from its index, a sealed segment's records are still checked when read.
      const bytes = await readFile(first);
      bytes[20] ^= 0xff;
      await writeFile(first, bytes);
      // On the caller's thread and in the worker thread alike, with the same message.
      const failures = [];
      for (const scanInWorkerFrom of [Number.MAX_SAFE_INTEGER, 0]) {
        const trusting = await openLog(dir, { segmentBytes: 512, scanInWorkerFrom });
        failures.push(await collect(trusting.read('t')).catch((error: unknown) => error));
        expect(await collect(trusting.read('t', { fromOffset: 5 }))).toEqual(stored.slice(5));
        await trusting.close();
      }
      expect(failures[0]).toBeInstanceOf(CorruptLogError);
      expect(failures[1]).toBeInstanceOf(CorruptLogError);
      expect((failures[0] as Error).message).toMatch(/: checksum mismatch at offset \d+$/);
      expect((failures[1] as Error).message).toBe((failures[0] as Error).message);
    });
  });
});
