import type { StoredEvent } from '@thumbforge/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEAD_LETTER_EVENT_TYPE, DEAD_LETTER_TOPIC, isDeadLetterEvent } from '../dead-letter.js';
import { positionKey, readBatches, type EventLog, type Subscription } from '../port.js';
import { collect, deferred, eventually, leftForGroup, testEvent, tick, uniqueName } from './helpers.js';

export interface EventLogContext {
  log: EventLog;
  /**
   * Closes the current log and opens a new one on the same storage (durable adapters). The contract
   * then also proves that events and committed positions survive it.
   */
  reopen?: () => Promise<EventLog>;
  /** Closes whatever log is open and removes the test's data. */
  cleanup: () => Promise<void>;
}

/**
 * A context over durable storage: `reopen` closes the newest log and opens another on the same
 * storage; `cleanup` closes every log opened, then runs `removeStorage`.
 */
export async function reopenableLog(
  open: () => Promise<EventLog>,
  removeStorage: () => Promise<void> = async () => undefined,
): Promise<EventLogContext> {
  const opened: EventLog[] = [];
  const next = async () => {
    const log = await open();
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
      await removeStorage();
    },
  };
}

/** What an adapter offers beyond the port's required behaviour, and the contract then checks too. */
export interface EventLogFeatures {
  /** Honours `SubscriptionOptions.concurrency`. */
  concurrency?: boolean;
}

/**
 * The behaviour every EventLog adapter must have. Each test gets a fresh log from `makeLog` and uses
 * its own topic and group names, so adapters backed by a shared server can run it too.
 */
export function describeEventLogContract(
  name: string,
  makeLog: () => Promise<EventLogContext>,
  features: EventLogFeatures = {},
): void {
  describe(`EventLog contract: ${name}`, () => {
    let ctx: EventLogContext;
    let log: EventLog;

    beforeEach(async () => {
      ctx = await makeLog();
      log = ctx.log;
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    async function appendN(topic: string, count: number, from = 0): Promise<StoredEvent[]> {
      return log.append(
        topic,
        Array.from({ length: count }, (_, i) => testEvent(from + i)),
      );
    }

    /** Subscribes and records what the handler saw, in order. */
    async function record(
      topics: string[],
      from: Parameters<EventLog['subscribe']>[0]['from'],
      group = uniqueName('group'),
    ): Promise<{ sub: Subscription; seen: StoredEvent[] }> {
      const seen: StoredEvent[] = [];
      const sub = await log.subscribe({
        group,
        topics,
        from,
        handle: async (event) => {
          seen.push(event);
        },
      });
      return { sub, seen };
    }

    const offsetsOf = (events: StoredEvent[], topic?: string) =>
      events.filter((e) => topic === undefined || e.topic === topic).map((e) => e.offset);

    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

    async function deadLetters() {
      return (await collect(log.read(DEAD_LETTER_TOPIC))).filter(isDeadLetterEvent);
    }

    describe('append, read and size', () => {
      it('assigns consecutive offsets from 0 on partition 0 and returns the envelopes with them', async () => {
        const topic = uniqueName('t');
        const events = [testEvent(0), testEvent(1), testEvent(2)];
        const stored = await log.append(topic, events);
        expect(stored.map((e) => [e.topic, e.partition, e.offset])).toEqual([
          [topic, 0, 0],
          [topic, 0, 1],
          [topic, 0, 2],
        ]);
        stored.forEach((e, i) => expect(e).toMatchObject(events[i]));
        expect(offsetsOf(await appendN(topic, 2, 3))).toEqual([3, 4]);
        expect(await log.size(topic)).toBe(5);
        expect(await log.ends(topic)).toEqual([5]);
      });

      it('appends to a named partition, refuses one the topic does not have, and keeps owner epochs', async () => {
        const topic = uniqueName('t');
        await appendN(topic, 1);
        const fenced = { ...testEvent(1), fence: 0 };
        const stored = await log.append(topic, [fenced], { partition: 0, key: 'any-key' });
        expect(stored.map((e) => [e.partition, e.offset, e.fence])).toEqual([[0, 1, 0]]);
        expect((await collect(log.read(topic, { fromOffset: 1 })))[0]).toEqual(stored[0]);
        await expect(log.append(topic, [testEvent(2)], { partition: 64 })).rejects.toThrow(RangeError);
        expect(await log.size(topic)).toBe(2);
      });

      it('reads back exactly what was appended, in offset order, from the start or any offset', async () => {
        const topic = uniqueName('t');
        const stored = await appendN(topic, 6);
        expect(await collect(log.read(topic))).toEqual(stored);
        expect(await collect(log.read(topic, { fromOffset: 4 }))).toEqual(stored.slice(4));
        expect(await collect(log.read(topic, { fromOffset: 6 }))).toEqual([]);
      });

      it('reads in batches the same events as one by one, from the start or any offset', async () => {
        const topic = uniqueName('t');
        const stored = await appendN(topic, 5);
        const batches = await collect(readBatches(log, topic));
        expect(batches.every((batch) => batch.length > 0)).toBe(true);
        expect(batches.flat()).toEqual(stored);
        expect((await collect(readBatches(log, topic, { fromOffset: 3 }))).flat()).toEqual(stored.slice(3));
        expect(await collect(readBatches(log, topic, { fromOffset: 5 }))).toEqual([]);
      });

      it('reads only the types asked for, at their own offsets, skipping the rest', async () => {
        const topic = uniqueName('t');
        const of = (type: string, n: number, extra: Record<string, unknown> = {}) => ({
          ...testEvent(n, 'agg_1', extra),
          type,
        });
        const stored = [
          ...(await log.append(topic, [of('a.kept', 0), of('b.skipped', 1)])),
          // A payload that spells another type, an id and a type that need escapes in JSON.
          ...(await log.append(topic, [of('b.skipped', 2, { type: 'a.kept', inner: '"type":"a.kept"' })])),
          ...(await log.append(topic, [{ ...of('b.skipped', 3), id: 'evt_"quoted"' }])),
          ...(await log.append(topic, [{ ...of('a.kept', 4), id: 'evt_\\back' }, of('odd "type"', 5)])),
          ...(await log.append(topic, [of('a.kept', 6), of('b.skipped', 7), of('b.skipped', 8)])),
        ];
        const wanted = (types: string[], from = 0) =>
          stored.filter((e) => e.offset >= from && types.includes(e.type));
        expect(await collect(log.read(topic, { types: ['a.kept'] }))).toEqual(wanted(['a.kept']));
        expect(offsetsOf(wanted(['a.kept']))).toEqual([0, 4, 6]);
        expect(await collect(log.read(topic, { types: ['odd "type"', 'a.kept'], fromOffset: 5 }))).toEqual(
          wanted(['odd "type"', 'a.kept'], 5),
        );
        const batches = await collect(readBatches(log, topic, { types: ['b.skipped'] }));
        expect(batches.every((batch) => batch.length > 0)).toBe(true);
        expect(batches.flat()).toEqual(wanted(['b.skipped']));
        expect(await collect(log.read(topic, { types: [] }))).toEqual([]);
        expect(await collect(log.read(topic, { types: ['c.absent'], fromOffset: 2 }))).toEqual([]);
        await expect(collect(log.read(topic, { types: 'a.kept' as unknown as string[] }))).rejects.toThrow(
          TypeError,
        );
      });

      it('reads events whole, or without the payload fields a caller leaves unread, and nothing else', async () => {
        const topic = uniqueName('t');
        const of = (type: string, n: number) => ({ ...testEvent(n), type });
        const stored = [
          ...(await log.append(topic, [of('a.large', 0), of('b.small', 1)])),
          ...(await log.append(topic, [of('a.large', 2)])),
        ];
        const unread = { 'a.large': ['nested', 'text', 'absent'] };
        const without = (event: StoredEvent): StoredEvent => {
          const { nested: _nested, text: _text, ...payload } = event.payload as Record<string, unknown>;
          return { ...event, payload };
        };
        const read = await collect(log.read(topic, { unread }));
        expect(read).toHaveLength(stored.length);
        read.forEach((event, i) => {
          const whole = stored[i];
          if (whole.type === 'a.large') expect([whole, without(whole)]).toContainEqual(event);
          else expect(event).toEqual(whole);
        });
        expect(await collect(log.read(topic, { types: ['b.small'], unread }))).toEqual([stored[1]]);
        await expect(
          collect(
            log.read(topic, { unread: { 'a.large': 'nested' } as unknown as Record<string, string[]> }),
          ),
        ).rejects.toThrow(TypeError);
      });

      it('reads up to the end the topic had when the read started', async () => {
        const topic = uniqueName('t');
        await appendN(topic, 3);
        const seen: number[] = [];
        for await (const event of log.read(topic)) {
          if (event.offset === 0) await appendN(topic, 2, 3);
          seen.push(event.offset);
        }
        expect(seen).toEqual([0, 1, 2]);
        expect(await log.size(topic)).toBe(5);
      });

      it('treats a topic never written to as empty, and an empty append as a no-op', async () => {
        const topic = uniqueName('t');
        expect(await log.size(topic)).toBe(0);
        expect(await collect(log.read(topic))).toEqual([]);
        expect(await log.append(topic, [])).toEqual([]);
        expect(await log.size(topic)).toBe(0);
      });

      it('numbers each topic on its own', async () => {
        const a = uniqueName('a');
        const b = uniqueName('b');
        await appendN(a, 3);
        expect(offsetsOf(await appendN(b, 2))).toEqual([0, 1]);
        expect(offsetsOf(await appendN(a, 1))).toEqual([3]);
      });

      it('keeps each append contiguous and ordered when many callers append at once', async () => {
        const topic = uniqueName('t');
        const callers = 40;
        const callsEach = 5;
        let n = 0;
        const results = await Promise.all(
          Array.from({ length: callers }, async (_, caller) => {
            const calls: StoredEvent[][] = [];
            for (let call = 0; call < callsEach; call++) {
              const batch = Array.from({ length: 1 + ((caller + call) % 4) }, () =>
                testEvent(n++, `agg_${caller}`),
              );
              calls.push(await log.append(topic, batch));
            }
            return calls;
          }),
        );
        const calls = results.flat();
        for (const call of calls)
          expect(offsetsOf(call)).toEqual(range(call[0].offset, call[0].offset + call.length));
        for (const callerCalls of results) {
          const firsts = callerCalls.map((call) => call[0].offset);
          expect(firsts).toEqual([...firsts].sort((x, y) => x - y));
        }
        const all = calls.flat();
        expect(all.map((e) => e.offset).sort((x, y) => x - y)).toEqual(range(0, n));
        expect(await log.size(topic)).toBe(n);
        const byOffset = new Map(all.map((e) => [e.offset, e.id]));
        const read = await collect(log.read(topic));
        expect(read.map((e) => e.offset)).toEqual(range(0, n));
        for (const e of read) expect(e.id).toBe(byOffset.get(e.offset));
      });

      it('answers ping while open', async () => {
        await expect(log.ping()).resolves.toBeUndefined();
      });

      it('refuses appends once closed', async () => {
        const topic = uniqueName('t');
        await log.close();
        await expect(log.append(topic, [testEvent(0)])).rejects.toThrow();
      });
    });

    describe('subscriptions', () => {
      it('from beginning: replays what exists, then delivers live events, in order', async () => {
        const topic = uniqueName('t');
        await appendN(topic, 5);
        const { sub, seen } = await record([topic], 'beginning');
        await sub.caughtUp;
        expect(offsetsOf(seen).slice(0, 5)).toEqual(range(0, 5));
        const live = await appendN(topic, 3, 5);
        await sub.waitFor(topic, 7);
        expect(offsetsOf(seen)).toEqual(range(0, 8));
        expect(seen.slice(5)).toEqual(live);
        await sub.close();
      });

      it('from end: delivers only events appended after subscribing; caughtUp at once', async () => {
        const topic = uniqueName('t');
        await appendN(topic, 3);
        const { sub, seen } = await record([topic], 'end');
        await sub.caughtUp;
        expect(seen).toEqual([]);
        await appendN(topic, 2, 3);
        await sub.waitFor(topic, 4);
        expect(offsetsOf(seen)).toEqual([3, 4]);
        await sub.close();
      });

      it('from positions: resumes each topic at its next offset; a topic without one starts at 0', async () => {
        const a = uniqueName('a');
        const b = uniqueName('b');
        await appendN(a, 5);
        await appendN(b, 3);
        const { sub, seen } = await record([a, b], { positions: { [positionKey(a)]: 3 } });
        await sub.caughtUp;
        expect(offsetsOf(seen, a)).toEqual([3, 4]);
        expect(offsetsOf(seen, b)).toEqual([0, 1, 2]);
        await sub.close();
      });

      it('from committed: a group starts at 0, then resumes after the last handled event', async () => {
        const topic = uniqueName('t');
        const group = uniqueName('g');
        await appendN(topic, 5);
        const first = await record([topic], 'committed', group);
        await first.sub.caughtUp;
        expect(offsetsOf(first.seen)).toEqual(range(0, 5));
        await first.sub.close();
        await appendN(topic, 3, 5);
        const second = await record([topic], 'committed', group);
        await second.sub.caughtUp;
        expect(offsetsOf(second.seen)).toEqual([5, 6, 7]);
        await second.sub.close();
        if (ctx.reopen) {
          await appendN(topic, 1, 8);
          log = await ctx.reopen();
          expect(offsetsOf(await collect(log.read(topic)))).toEqual(range(0, 9));
          const third = await record([topic], 'committed', group);
          await third.sub.caughtUp;
          expect(offsetsOf(third.seen)).toEqual([8]);
          await third.sub.close();
        }
      });

      it('keeps committed positions per group', async () => {
        const topic = uniqueName('t');
        await appendN(topic, 4);
        const one = await record([topic], 'committed', uniqueName('g1'));
        await one.sub.caughtUp;
        await one.sub.close();
        const two = await record([topic], 'committed', uniqueName('g2'));
        await two.sub.caughtUp;
        expect(offsetsOf(two.seen)).toEqual(range(0, 4));
        await two.sub.close();
      });

      it('commits nothing for beginning, end and positions subscriptions', async () => {
        const topic = uniqueName('t');
        const group = uniqueName('g');
        await appendN(topic, 3);
        for (const from of ['beginning', 'end', { positions: { [positionKey(topic)]: 1 } }] as const) {
          const { sub } = await record([topic], from, group);
          await sub.caughtUp;
          await sub.close();
        }
        const committed = await record([topic], 'committed', group);
        await committed.sub.caughtUp;
        expect(offsetsOf(committed.seen)).toEqual([0, 1, 2]);
        await committed.sub.close();
      });

      it('resolves caughtUp only when every topic present at subscribe time is handled', async () => {
        const a = uniqueName('a');
        const b = uniqueName('b');
        const empty = uniqueName('empty');
        await appendN(a, 30);
        await appendN(b, 20);
        const { sub, seen } = await record([a, b, empty], 'beginning');
        await sub.caughtUp;
        expect(offsetsOf(seen, a).slice(0, 30)).toEqual(range(0, 30));
        expect(offsetsOf(seen, b).slice(0, 20)).toEqual(range(0, 20));
        await sub.close();
        const onlyEmpty = await record([empty], 'beginning');
        await onlyEmpty.sub.caughtUp;
        expect(onlyEmpty.seen).toEqual([]);
        await onlyEmpty.sub.close();
      });

      it('resolves waitFor for handled offsets at once and for later ones once handled', async () => {
        const topic = uniqueName('t');
        const other = uniqueName('other');
        await appendN(topic, 2);
        const { sub, seen } = await record([topic], 'beginning');
        await sub.waitFor(topic, 1);
        expect(offsetsOf(seen)).toEqual([0, 1]);
        await sub.waitFor(topic, 0);
        const pending = sub.waitFor(topic, 4);
        await appendN(topic, 3, 2);
        await pending;
        expect(offsetsOf(seen)).toEqual(range(0, 5));
        await expect(sub.waitFor(other, 0)).rejects.toThrow();
        await sub.close();
      });

      it('tells a lone subscriber it owns every partition of its topics before handling any event', async () => {
        const a = uniqueName('t');
        const b = uniqueName('t');
        await appendN(a, 2);
        const owned: string[] = [];
        const handledBeforeAssignment: number[] = [];
        const sub = await log.subscribe({
          group: uniqueName('group'),
          topics: [a, b],
          from: 'committed',
          handle: async (event) => {
            if (owned.length === 0) handledBeforeAssignment.push(event.offset);
          },
          onAssignment: (partitions) => {
            owned.splice(0, owned.length, ...partitions.map((p) => positionKey(p.topic, p.partition)));
          },
        });
        await sub.caughtUp;
        expect(handledBeforeAssignment).toEqual([]);
        const topics = new Set(owned.map((key) => key.slice(0, key.lastIndexOf(':'))));
        expect(topics).toEqual(new Set([a, b]));
        await sub.close();
      });

      it('delivers every event to every subscription', async () => {
        const topic = uniqueName('t');
        await appendN(topic, 4);
        const one = await record([topic], 'beginning');
        const two = await record([topic], 'beginning');
        await Promise.all([one.sub.caughtUp, two.sub.caughtUp]);
        expect(offsetsOf(one.seen)).toEqual(range(0, 4));
        expect(offsetsOf(two.seen)).toEqual(range(0, 4));
        await Promise.all([one.sub.close(), two.sub.close()]);
      });

      it('runs the handler one event at a time, in order per topic', async () => {
        const a = uniqueName('a');
        const b = uniqueName('b');
        let running = 0;
        let maxRunning = 0;
        const seen: StoredEvent[] = [];
        const sub = await log.subscribe({
          group: uniqueName('g'),
          topics: [a, b],
          from: 'beginning',
          handle: async (event) => {
            running++;
            maxRunning = Math.max(maxRunning, running);
            await tick(event.offset % 3 === 0 ? 1 : 0);
            seen.push(event);
            running--;
          },
        });
        await Promise.all([appendN(a, 10), appendN(b, 10), appendN(a, 5, 10)]);
        await sub.waitFor(a, 14);
        await sub.waitFor(b, 9);
        expect(maxRunning).toBe(1);
        expect(offsetsOf(seen, a)).toEqual(range(0, 15));
        expect(offsetsOf(seen, b)).toEqual(range(0, 10));
        await sub.close();
      });

      it('lets a handler append to the log', async () => {
        const input = uniqueName('in');
        const output = uniqueName('out');
        const sub = await log.subscribe({
          group: uniqueName('g'),
          topics: [input],
          from: 'beginning',
          handle: async (event) => {
            await log.append(output, [testEvent(event.offset, event.aggregateId)]);
          },
        });
        await appendN(input, 3);
        await sub.waitFor(input, 2);
        expect(await log.size(output)).toBe(3);
        await sub.close();
      });

      it('retries a failing handler and moves on once it succeeds, dead-lettering nothing', async () => {
        const topic = uniqueName('t');
        const stored = await appendN(topic, 3);
        const attempts = new Map<number, number>();
        const sub = await log.subscribe({
          group: uniqueName('g'),
          topics: [topic],
          from: 'beginning',
          maxAttempts: 3,
          handle: async (event) => {
            const attempt = (attempts.get(event.offset) ?? 0) + 1;
            attempts.set(event.offset, attempt);
            if (event.offset === 1 && attempt < 3) throw new Error('not yet');
          },
        });
        await sub.waitFor(topic, 2);
        expect([...attempts]).toEqual([
          [0, 1],
          [1, 3],
          [2, 1],
        ]);
        const ids = new Set(stored.map((e) => e.id));
        expect((await deadLetters()).filter((d) => ids.has(d.payload.event.id))).toEqual([]);
        await sub.close();
      });

      it('dead-letters an event that fails every attempt, with its error and position, and moves on', async () => {
        const topic = uniqueName('t');
        const group = uniqueName('g');
        const stored = await appendN(topic, 3);
        const attempts = new Map<number, number>();
        const sub = await log.subscribe({
          group,
          topics: [topic],
          from: 'committed',
          maxAttempts: 2,
          handle: async (event) => {
            attempts.set(event.offset, (attempts.get(event.offset) ?? 0) + 1);
            if (event.offset === 1) throw new Error(`cannot handle ${event.id}`);
          },
        });
        await sub.waitFor(topic, 2);
        expect([...attempts]).toEqual([
          [0, 1],
          [1, 2],
          [2, 1],
        ]);
        const parked = (await deadLetters()).filter((d) => d.payload.event.id === stored[1].id);
        expect(parked).toHaveLength(1);
        expect(parked[0].type).toBe(DEAD_LETTER_EVENT_TYPE);
        expect(parked[0].causationId).toBe(stored[1].id);
        expect(parked[0].payload).toMatchObject({ group, topic, partition: 0, offset: 1, attempts: 2 });
        expect(parked[0].payload.error).toContain(`cannot handle ${stored[1].id}`);
        const { topic: _t, partition: _p, offset: _o, ...original } = stored[1];
        expect(parked[0].payload.event).toEqual(original);
        await sub.close();
        const resumed = await record([topic], 'committed', group);
        await resumed.sub.caughtUp;
        expect(resumed.seen).toEqual([]);
        await resumed.sub.close();
      });

      it('close lets the in-flight event finish, commits it, and handles nothing after it', async () => {
        const topic = uniqueName('t');
        const group = uniqueName('g');
        await appendN(topic, 3);
        const entered = deferred();
        const gate = deferred();
        const finished: number[] = [];
        const sub = await log.subscribe({
          group,
          topics: [topic],
          from: 'committed',
          handle: async (event) => {
            entered.resolve();
            await gate.promise;
            finished.push(event.offset);
          },
        });
        await entered.promise;
        let closed = false;
        const closing = sub.close().then(() => (closed = true));
        await tick(20);
        expect(closed).toBe(false);
        gate.resolve();
        await closing;
        expect(finished).toEqual([0]);
        await tick(20);
        expect(finished).toEqual([0]);
        const resumed = await record([topic], 'committed', group);
        await resumed.sub.caughtUp;
        expect(offsetsOf(resumed.seen)).toEqual([1, 2]);
        await resumed.sub.close();
      });

      it('closing the log lets in-flight handlers finish', async () => {
        const topic = uniqueName('t');
        const group = uniqueName('g');
        await appendN(topic, 2);
        const entered = deferred();
        const gate = deferred();
        const finished: number[] = [];
        await log.subscribe({
          group,
          topics: [topic],
          from: 'committed',
          handle: async (event) => {
            entered.resolve();
            await gate.promise;
            finished.push(event.offset);
          },
        });
        await entered.promise;
        const closing = log.close();
        gate.resolve();
        await closing;
        expect(finished).toEqual([0]);
        if (ctx.reopen) {
          log = await ctx.reopen();
          const resumed = await record([topic], 'committed', group);
          await resumed.sub.caughtUp;
          expect(offsetsOf(resumed.seen)).toEqual([1]);
          await resumed.sub.close();
        }
      });

      it('rejects caughtUp and pending waitFor when closed before reaching them', async () => {
        const topic = uniqueName('t');
        await appendN(topic, 2);
        const gate = deferred();
        const sub = await log.subscribe({
          group: uniqueName('g'),
          topics: [topic],
          from: 'beginning',
          handle: () => gate.promise,
        });
        const waiting = sub.waitFor(topic, 5);
        const closing = sub.close();
        gate.resolve();
        await closing;
        await expect(sub.caughtUp).rejects.toThrow();
        await expect(waiting).rejects.toThrow();
      });
    });

    if (features.concurrency) {
      describe('concurrent handling', () => {
        /** Subscribes a new group with `concurrency`; the handler records how many ran at once. */
        async function concurrent(
          topic: string,
          concurrency: number,
          handle: (event: StoredEvent) => Promise<void>,
        ) {
          const state = { running: 0, most: 0, handled: [] as number[] };
          const group = uniqueName('g');
          const sub = await log.subscribe({
            group,
            topics: [topic],
            from: 'committed',
            concurrency,
            handle: async (event) => {
              state.most = Math.max(state.most, ++state.running);
              try {
                await handle(event);
              } finally {
                state.running--;
              }
              state.handled.push(event.offset);
            },
          });
          return { sub, group, state };
        }

        it('hands out up to `concurrency` events at once and handles every one', async () => {
          const topic = uniqueName('t');
          await appendN(topic, 12);
          const { sub, state } = await concurrent(topic, 3, () => tick(2));
          await sub.caughtUp;
          expect(state.most).toBe(3);
          expect(state.handled.sort((a, b) => a - b)).toEqual(range(0, 12));
          await sub.close();
        });

        it('overlaps events appended one at a time, in log order, and commits them all', async () => {
          const topic = uniqueName('t');
          const gate = deferred();
          const started: number[] = [];
          const { sub, group, state } = await concurrent(topic, 3, async (event) => {
            started.push(event.offset);
            await gate.promise;
          });
          for (let n = 0; n < 3; n++) {
            await appendN(topic, 1, n);
            // Each is on the log before the next is appended: a live tail hands them on one by one.
            await eventually(() => started.length === n + 1);
          }
          expect(state.running).toBe(3);
          expect(started).toEqual([0, 1, 2]);
          gate.resolve();
          await sub.waitFor(topic, 2);
          await sub.close();
          expect(await leftForGroup(log, group, [topic])).toEqual([]);
        });

        it('moves no position past an event still being handled', async () => {
          const topic = uniqueName('t');
          await appendN(topic, 3);
          const first = deferred();
          const { sub, state } = await concurrent(topic, 2, async (event) => {
            if (event.offset === 0) await first.promise;
          });
          await eventually(() => state.handled.length === 2);
          let reached = false;
          const waiting = sub.waitFor(topic, 1).then(() => (reached = true));
          await tick(50);
          expect(reached).toBe(false);
          first.resolve();
          await waiting;
          await sub.caughtUp;
          await sub.close();
        });

        it('commits no position past an event still being handled, so the group is handed it again', async () => {
          const topic = uniqueName('t');
          await appendN(topic, 3);
          const group = uniqueName('g');
          let laterHandled = 0;
          const sub = await log.subscribe({
            group,
            topics: [topic],
            from: 'committed',
            concurrency: 2,
            maxAttempts: 1_000_000,
            handle: async (event) => {
              // The first event keeps failing and waits for retries; the later ones finish meanwhile.
              if (event.offset === 0) throw new Error('not yet');
              laterHandled++;
            },
          });
          await eventually(() => laterHandled === 2);
          await sub.close();
          expect(offsetsOf(await leftForGroup(log, group, [topic]))).toEqual([0, 1, 2]);
        });

        it('refuses a concurrency that is not a positive integer', async () => {
          for (const concurrency of [0, 1.5, -1]) {
            await expect(
              log.subscribe({ group: 'g', topics: ['t'], from: 'end', concurrency, handle: async () => {} }),
            ).rejects.toThrow(/concurrency/);
          }
        });
      });
    }
  });
}
