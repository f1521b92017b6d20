import { createRequire } from 'node:module';
import type { StoredEvent } from '@thumbforge/contracts';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';
import {
  MemoryProjectionStore,
  type Document,
  type ProjectionCollection,
  type ProjectionStore,
} from '@thumbforge/projection-store';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keepProjection, positionKey, type Subscription } from '../../src/index.js';
import {
  EVENT_TOPIC_CONFIG,
  EventLogClosedError,
  KafkaEventLog,
  type KafkaEventLogOptions,
} from '../../src/kafka/index.js';
import { createKeyPartitioner } from '../../src/kafka/partitioner.js';
import { REQUEST_QUEUE_MODULE } from '../../src/kafka/request-queue.js';
import {
  collect,
  describeEventLogContract,
  leftForGroup,
  reopenableLog,
  testEvent,
  uniqueName,
} from '../../src/testing/index.js';

/** The first run resolves Kafka from Maven Central; later runs start the cached broker in seconds. */
const PROVISIONING_TIMEOUT_MS = 15 * 60_000;

let infra: RunningInfrastructure<'kafka'>;

beforeAll(async () => {
  infra = await startInfrastructure({ services: ['kafka'] });
}, PROVISIONING_TIMEOUT_MS);

afterAll(async () => {
  await infra?.stop();
});

async function openKafkaLog(options: Partial<KafkaEventLogOptions> = {}): Promise<KafkaEventLog> {
  const log = new KafkaEventLog({ brokers: infra.kafka.brokers, retryDelayMs: () => 5, ...options });
  await log.open();
  return log;
}

/**
 * Calls `seen` with the arguments of each call of a method of kafkajs' request queue (one per broker
 * connection) on the connections of `clientId`, until the returned function is called.
 */
function watchRequestQueue(
  clientId: string,
  method: 'checkPendingRequests' | 'push',
  seen: (...args: unknown[]) => void,
): () => void {
  const { prototype } = createRequire(import.meta.url)(REQUEST_QUEUE_MODULE) as {
    prototype: Record<typeof method, (...args: unknown[]) => unknown>;
  };
  const original = prototype[method];
  const spy = vi.spyOn(prototype, method).mockImplementation(function (
    this: { clientId: string },
    ...args: unknown[]
  ) {
    if (this.clientId === clientId) seen(...args);
    return original.apply(this, args);
  });
  return () => spy.mockRestore();
}

describeEventLogContract('KafkaEventLog', () => reopenableLog(() => openKafkaLog()), { concurrency: true });

describe('KafkaEventLog on a real broker', () => {
  const logs: KafkaEventLog[] = [];
  const open = async (options: Partial<KafkaEventLogOptions> = {}) => {
    const log = await openKafkaLog(options);
    logs.push(log);
    return log;
  };
  afterAll(async () => {
    await Promise.all(logs.map((log) => log.close()));
  });

  it("lets an idle subscriber's connections sleep between fetches (kafkajs' request queue, fixed)", async () => {
    const clientId = uniqueName('idle-client');
    const log = await open({ clientId });
    const topic = uniqueName('idle');
    await log.append(topic, [testEvent(0, 'agg_idle')]);
    const subscription = await log.subscribe({
      group: uniqueName('idle'),
      topics: [topic],
      from: 'end',
      handle: async () => undefined,
    });
    await subscription.caughtUp;
    let looks = 0;
    const stop = watchRequestQueue(clientId, 'checkPendingRequests', () => looks++);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      stop();
      await subscription.close();
    }
    // Each answer to a fetch (every 500 ms while idle) or a heartbeat looks once per connection.
    // kafkajs 2.2.4 looked again every millisecond on each connection: hundreds in this second.
    expect(looks).toBeLessThan(100);
  });

  it.each([
    { assignmentsOnly: true, fetches: 'no' },
    { assignmentsOnly: false, fetches: 'some' },
  ])(
    'a member kept for its assignments (assignmentsOnly: $assignmentsOnly) sends $fetches fetches, and heartbeats',
    async ({ assignmentsOnly }) => {
      const clientId = uniqueName('lease-client');
      const log = await open({ clientId, heartbeatIntervalMs: 200 });
      const topic = uniqueName('lease');
      await log.createTopics([topic]);
      let assigned!: () => void;
      const joined = new Promise<void>((resolve) => (assigned = resolve));
      const subscription = await log.subscribe({
        group: uniqueName('lease'),
        topics: [topic],
        from: 'committed',
        assignmentsOnly,
        handle: async () => undefined,
        onAssignment: (partitions) => {
          if (partitions.length > 0) assigned();
        },
      });
      await joined;
      const sent = { Fetch: 0, Heartbeat: 0 };
      const stop = watchRequestQueue(clientId, 'push', (request) => {
        const api = (request as { entry: { apiName: string } }).entry.apiName;
        if (api === 'Fetch' || api === 'Heartbeat') sent[api]++;
      });
      try {
        // Two and a half of the default 500 ms fetch waits.
        await new Promise((resolve) => setTimeout(resolve, 1_250));
      } finally {
        stop();
        await subscription.close();
      }
      if (assignmentsOnly) expect(sent.Fetch).toBe(0);
      else expect(sent.Fetch).toBeGreaterThanOrEqual(2);
      expect(sent.Heartbeat).toBeGreaterThanOrEqual(1);
    },
  );

  it.each([1, 4])(
    'a live tail (concurrency %i) commits at most once per 200 ms, and everything it handled once quiet',
    async (concurrency) => {
      const clientId = uniqueName('tail-client');
      const log = await open({ clientId });
      const topic = uniqueName('tail');
      const group = uniqueName('g');
      await log.createTopics([topic]);
      const subscription = await log.subscribe({
        group,
        topics: [topic],
        from: 'committed',
        concurrency,
        handle: async () => undefined,
      });
      await subscription.caughtUp;
      let commits = 0;
      const stop = watchRequestQueue(clientId, 'push', (request) => {
        if ((request as { entry: { apiName: string } }).entry.apiName === 'OffsetCommit') commits++;
      });
      const events = 20;
      const started = performance.now();
      try {
        // One event per fetch, as a consumer that keeps up gets them: a commit after each would be 20.
        for (let n = 0; n < events; n++) {
          const [stored] = await log.append(topic, [testEvent(n, 'agg_tail')]);
          await subscription.waitFor(topic, stored!.offset, stored!.partition);
        }
        const elapsed = performance.now() - started;
        expect(commits).toBeLessThanOrEqual(Math.ceil(elapsed / 200) + 1);
        await expect.poll(() => leftForGroup(log, group, [topic]), { timeout: 10_000 }).toEqual([]);
      } finally {
        stop();
        await subscription.close();
      }
    },
  );

  it('creates topics once, with the configured partitions and infinite retention', async () => {
    const topic = uniqueName('created');
    const [one, two] = await Promise.all([open({ partitions: 3 }), open({ partitions: 3 })]);
    await Promise.all([one.createTopics([topic]), two.createTopics([topic])]);
    const other = await open({ partitions: { default: 5 } });
    const stored = await other.append(
      topic,
      Array.from({ length: 30 }, (_, i) => testEvent(i, `agg_${i}`)),
    );
    expect(new Set(stored.map((e) => e.partition))).toEqual(new Set([0, 1, 2]));

    const admin = new Kafka({ brokers: infra.kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
      expect(metadata.partitions).toHaveLength(3);
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [
          { type: ConfigResourceTypes.TOPIC, name: topic, configNames: Object.keys(EVENT_TOPIC_CONFIG) },
        ],
      });
      const config = Object.fromEntries(resources[0].configEntries.map((e) => [e.configName, e.configValue]));
      expect(config).toEqual(EVENT_TOPIC_CONFIG);
    } finally {
      await admin.disconnect();
    }
  });

  it('keys events by aggregate: one partition per aggregate, in append order, as the Java client places them', async () => {
    const log = await open({ partitions: 4 });
    const topic = uniqueName('keyed');
    const aggregates = ['acc_a', 'acc_b', 'acc_c', 'acc_d', 'acc_e', 'acc_f'];
    for (let round = 0; round < 5; round++) {
      await log.append(
        topic,
        aggregates.map((agg) => testEvent(round, agg)),
      );
    }
    await log.append(topic, [testEvent(99, 'acc_a')], { key: 'acc_b' });
    const partitionOf = createKeyPartitioner();
    const all: StoredEvent[] = [];
    for (let partition = 0; partition < 4; partition++) {
      const events = await collect(log.read(topic, { partition }));
      expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
      all.push(...events);
    }
    expect(all).toHaveLength(31);
    expect(await log.size(topic)).toBe(31);
    expect(await log.ends(topic)).toEqual(
      [0, 1, 2, 3].map((partition) => all.filter((e) => e.partition === partition).length),
    );
    for (const agg of aggregates) {
      const mine = all.filter((e) => e.aggregateId === agg && (e.payload as { n: number }).n !== 99);
      expect(new Set(mine.map((e) => e.partition))).toEqual(new Set([partitionOf(topic, agg, 4)]));
      expect(mine.map((e) => (e.payload as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
    }
    const rekeyed = all.find((e) => (e.payload as { n: number }).n === 99)!;
    expect(rekeyed.partition).toBe(partitionOf(topic, 'acc_b', 4));
  });

  it('reads the same through a worker thread as on its own: every partition, types, a start, a read dropped early', async () => {
    const inThread = await open({ partitions: 3 });
    const inWorker = await open({ partitions: 3, fetchInWorkerFrom: 0 });
    const topic = uniqueName('worker-read');
    const events = Array.from({ length: 90 }, (_, i) =>
      i % 3 === 0 ? { ...testEvent(i, `agg_${i % 7}`), type: 'test.other' } : testEvent(i, `agg_${i % 7}`),
    );
    const stored: StoredEvent[] = [];
    for (let i = 0; i < events.length; i += 10)
      stored.push(...(await inThread.append(topic, events.slice(i, i + 10))));
    // A start inside a partition, of any type and of one type.
    const later = stored.find((e) => e.offset >= 3)!;
    const laterOther = stored.find((e) => e.type === 'test.other' && e.offset >= 1)!;
    const reads = [
      {},
      { types: ['test.happened'] },
      { partition: later.partition, fromOffset: later.offset },
      { partition: laterOther.partition, types: ['test.other'], fromOffset: laterOther.offset },
    ];
    for (const options of reads) {
      const expected = await collect(inThread.read(topic, options));
      expect(expected.length).toBeGreaterThan(0);
      expect(await collect(inWorker.read(topic, options))).toStrictEqual(expected);
    }
    // Fields left unread: the worker cuts them out of the events of their type, this thread reads whole.
    const unread = { 'test.happened': ['nested', 'text', 'absent'] };
    const whole = await collect(inThread.read(topic, { unread }));
    expect(whole).toStrictEqual(await collect(inThread.read(topic)));
    const withoutUnread = ({ payload, ...event }: StoredEvent): StoredEvent => {
      const { nested: _nested, text: _text, ...kept } = payload as Record<string, unknown>;
      return { ...event, payload: kept };
    };
    expect(await collect(inWorker.read(topic, { unread }))).toStrictEqual(
      whole.map((event) => (event.type === 'test.happened' ? withoutUnread(event) : event)),
    );
    // A caller that stops after the first batch ends the worker's read; the log reads on.
    for await (const batch of inWorker.readBatches(topic, { partition: 0 })) {
      expect(batch.length).toBeGreaterThan(0);
      break;
    }
    expect(await collect(inWorker.read(topic))).toHaveLength(90);
    // Closing the log fails a read in the middle, and its worker is gone with it.
    const closing = await openKafkaLog({ partitions: 3, fetchInWorkerFrom: 0 });
    const reading = closing.readBatches(topic)[Symbol.asyncIterator]();
    expect((await reading.next()).done).toBe(false);
    await closing.close();
    await expect(collect({ [Symbol.asyncIterator]: () => reading })).rejects.toThrow(EventLogClosedError);
  });

  it('resumes each partition at its own position and waits for offsets per partition', async () => {
    const log = await open({ partitions: 3 });
    const topic = uniqueName('parts');
    const stored = await log.append(
      topic,
      Array.from({ length: 24 }, (_, i) => testEvent(i, `agg_${i % 6}`)),
    );
    const ends = new Map<number, number>();
    for (const e of stored) ends.set(e.partition, Math.max(ends.get(e.partition) ?? 0, e.offset + 1));
    const positions = Object.fromEntries([...ends].map(([p, end]) => [positionKey(topic, p), end - 1]));
    const seen: StoredEvent[] = [];
    const sub = await log.subscribe({
      group: uniqueName('g'),
      topics: [topic],
      from: { positions },
      handle: async (e) => {
        seen.push(e);
      },
    });
    await sub.caughtUp;
    expect(seen.map((e) => [e.partition, e.offset]).sort()).toEqual(
      [...ends].map(([p, end]) => [p, end - 1]).sort(),
    );
    const [late] = await log.append(topic, [testEvent(100, 'agg_late')]);
    await sub.waitFor(topic, late.offset, late.partition);
    expect(seen.at(-1)!.id).toBe(late.id);
    await expect(sub.waitFor(topic, 0, 3)).rejects.toThrow(RangeError);
    await sub.close();
  });

  it('handles the partitions of a group at once when asked, each in order, and commits each', async () => {
    const log = await open({ partitions: 2 });
    const topic = uniqueName('at-once');
    const group = uniqueName('g');
    await log.createTopics([topic]);
    for (let n = 0; n < 6; n++) await log.append(topic, [testEvent(n, `agg_${n}`)], { partition: n % 2 });
    const handled: StoredEvent[] = [];
    // The first event of each partition finishes only once the other partition's has started: one
    // partition after the other, whichever came first would wait forever.
    const began: (() => void)[] = [];
    const started = [0, 1].map(() => new Promise<void>((resolve) => began.push(resolve)));
    const sub = await log.subscribe({
      group,
      topics: [topic],
      from: 'committed',
      partitionsAtOnce: true,
      handle: async (event) => {
        if (event.offset === 0) {
          began[event.partition]!();
          await started[1 - event.partition];
        }
        handled.push(event);
      },
    });
    await sub.caughtUp;
    for (const partition of [0, 1]) {
      expect(handled.filter((e) => e.partition === partition).map((e) => e.offset)).toEqual([0, 1, 2]);
    }
    await sub.close();

    expect(await leftForGroup(log, group, [topic])).toEqual([]);
  });

  it('shares a group between replicas and hands every event on, in key order, across rebalances', async () => {
    const fast = { partitions: 4, heartbeatIntervalMs: 300, sessionTimeoutMs: 6_000 };
    const [first, second, third] = await Promise.all([open(fast), open(fast), open(fast)]);
    const topic = uniqueName('shared');
    const group = uniqueName('g');
    await first.createTopics([topic]);
    const handled: { replica: string; event: StoredEvent }[] = [];
    const join = (replica: string, log: KafkaEventLog): Promise<Subscription> =>
      log.subscribe({
        group,
        topics: [topic],
        from: 'committed',
        handle: async (event) => {
          handled.push({ replica, event });
        },
      });
    let n = 0;
    const appendRound = async () => {
      for (let i = 0; i < 40; i++) await first.append(topic, [testEvent(n++, `acc_${i % 8}`)]);
    };

    const a = await join('a', second);
    await appendRound();
    const b = await join('b', third);
    await appendRound();
    await Promise.all([a.caughtUp, b.caughtUp]);
    await a.close();
    await appendRound();
    const ends = await first.size(topic);
    expect(ends).toBe(n);
    for (let partition = 0; partition < 4; partition++) {
      const events = await collect(first.read(topic, { partition }));
      if (events.length > 0) await b.waitFor(topic, events.at(-1)!.offset, partition);
    }
    await b.close();

    const ids = new Set(handled.map((h) => h.event.id));
    expect(ids.size).toBe(n);
    expect(new Set(handled.map((h) => h.replica))).toEqual(new Set(['a', 'b']));
    for (let agg = 0; agg < 8; agg++) {
      const order: number[] = [];
      for (const { event } of handled) {
        const value = (event.payload as { n: number }).n;
        if (event.aggregateId === `acc_${agg}` && !order.includes(value)) order.push(value);
      }
      expect(order).toEqual([...order].sort((x, y) => x - y));
    }

    expect(await leftForGroup(first, group, [topic])).toEqual([]);
  });
});

describe('partition ownership', () => {
  it('tells the members of a group which partitions each owns, disjoint and complete, across a leave', async () => {
    const fast = { partitions: 4, heartbeatIntervalMs: 300, sessionTimeoutMs: 6_000 };
    const [one, two] = await Promise.all([openKafkaLog(fast), openKafkaLog(fast)]);
    try {
      const topic = uniqueName('owned');
      const group = uniqueName('g');
      await one.createTopics([topic]);
      const owned = { a: [] as number[], b: [] as number[] };
      const join = (member: 'a' | 'b', log: KafkaEventLog) =>
        log.subscribe({
          group,
          topics: [topic],
          from: 'committed',
          handle: async () => undefined,
          onAssignment: (partitions) => {
            expect(partitions.every((p) => p.topic === topic)).toBe(true);
            owned[member] = partitions.map((p) => p.partition).sort();
          },
        });
      const a = await join('a', one);
      await expect.poll(() => owned.a, { timeout: 30_000 }).toEqual([0, 1, 2, 3]);
      const b = await join('b', two);
      await expect
        .poll(() => owned.a.length > 0 && owned.b.length > 0 && owned.a.length + owned.b.length === 4, {
          timeout: 30_000,
        })
        .toBe(true);
      expect([...owned.a, ...owned.b].sort()).toEqual([0, 1, 2, 3]);
      await b.close();
      await expect.poll(() => owned.a, { timeout: 30_000 }).toEqual([0, 1, 2, 3]);
      await a.close();
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('a projection kept by two replicas over one store', () => {
  it('is written by one replica at a time, read by both, and handed on when the writer leaves', async () => {
    const fast = { partitions: 2, heartbeatIntervalMs: 300, sessionTimeoutMs: 6_000 };
    const [one, two] = await Promise.all([openKafkaLog(fast), openKafkaLog(fast)]);
    const store = new MemoryProjectionStore();
    const topic = uniqueName('kept');
    const name = uniqueName('projection');
    const applied: { replica: string; id: string }[] = [];
    // Per replica, whether it was last told it is the only writer of the projection's collection.
    const trusting = new Map<string, boolean>();
    const storeOf = (replica: string): ProjectionStore => ({
      collection: <T extends Document>(collection: string) =>
        Object.assign(Object.create(store.collection<T>(collection)) as ProjectionCollection<T>, {
          cacheOwnWrites: (on: boolean) => trusting.set(replica, on),
        }),
      positions: (projection) => store.positions(projection),
      savePositions: (projection, positions) => store.savePositions(projection, positions),
      ping: () => store.ping(),
      close: () => store.close(),
    });
    const keep = (replica: string, log: KafkaEventLog) =>
      keepProjection({
        log,
        store: storeOf(replica),
        name,
        topics: [topic],
        owns: ['docs'],
        apply: async (event) => {
          applied.push({ replica, id: event.id });
        },
      });
    try {
      await one.createTopics([topic]);
      await one.append(
        topic,
        Array.from({ length: 10 }, (_, i) => testEvent(i, `acc_${i % 4}`)),
      );
      const a = await keep('a', one);
      await a.caughtUp;
      expect(new Set(applied.map((x) => x.replica))).toEqual(new Set(['a']));
      expect(trusting.get('a')).toBe(true);
      // The lease may move to b when it joins; a is idle then, so nothing is applied twice.
      const b = await keep('b', two);
      await b.caughtUp;
      const more = await one.append(
        topic,
        Array.from({ length: 10 }, (_, i) => testEvent(10 + i, `acc_${i % 4}`)),
      );
      // Either replica sees what the writer applied, whichever one it is.
      for (const event of more) await Promise.all([a.reached(event), b.reached(event)]);
      expect(applied.map((x) => x.id).sort()).toEqual([...new Set(applied.map((x) => x.id))].sort());
      expect(applied).toHaveLength(20);
      // Whoever holds the lease now wrote the last events.
      const holder = applied.at(-1)!.replica;
      expect(new Set(applied.slice(10).map((x) => x.replica))).toEqual(new Set([holder]));

      const other = holder === 'a' ? 'b' : 'a';
      expect(trusting.get(holder)).toBe(true);
      expect(trusting.get(other) ?? false).toBe(false);

      const [leaving, staying] = holder === 'a' ? [a, b] : [b, a];
      await leaving.close();
      expect(trusting.get(holder)).toBe(false);
      const last = await one.append(
        topic,
        Array.from({ length: 6 }, (_, i) => testEvent(20 + i, `acc_${i % 4}`)),
      );
      for (const event of last) await staying.reached(event);
      expect(applied).toHaveLength(26);
      expect(new Set(applied.slice(20).map((x) => x.replica))).toEqual(new Set([other]));
      expect(trusting.get(other)).toBe(true);
      await staying.close();
      expect(trusting.get(other)).toBe(false);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('key partitioner', () => {
  it("matches the Java client's murmur2 placement", () => {
    // murmur2 values from Apache Kafka's own client tests (UtilsTest.testMurmur2).
    const java: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ];
    const partitionOf = createKeyPartitioner();
    for (const [key, hash] of java) {
      for (const partitions of [1, 3, 12, 50]) {
        expect(partitionOf('t', key, partitions)).toBe((hash & 0x7fffffff) % partitions);
      }
    }
  });
});
