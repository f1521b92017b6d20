import type { StoredEvent } from '@thumbforge/contracts';
import { describe, expect, it, vi } from 'vitest';
import { OwnerFence, type EventLog } from '../src/index.js';
import { MemoryEventLog, testEvent } from '../src/testing/index.js';

const TOPIC = 'thumbforge.billing';

/** The writer's view: the latest marker it folded per partition (another owner's too, when told). */
type View = Map<number, number>;

function fenceOn(
  log: EventLog,
  reached: StoredEvent[] = [],
  warnings: string[] = [],
  view: View = new Map(),
) {
  return new OwnerFence({
    log,
    topic: TOPIC,
    writer: 'billing',
    reached: async (marker) => {
      reached.push(marker);
      view.set(marker.partition, Math.max(view.get(marker.partition) ?? -1, marker.offset));
    },
    current: async (partition) => view.get(partition),
    retryDelayMs: 1,
    logger: { warn: (_details, message) => warnings.push(message) },
  });
}

describe('OwnerFence', () => {
  it('fences each assigned partition with a marker whose offset becomes the epoch, once its view has it', async () => {
    const log = new MemoryEventLog();
    await log.append(TOPIC, [testEvent(0), testEvent(1)]);
    const reached: StoredEvent[] = [];
    const fence = fenceOn(log, reached);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    expect(await fence.epoch(0)).toBe(2);
    expect(fence.holds(0, 2)).toBe(true);
    expect(reached.map((e) => [e.type, e.offset])).toEqual([['log.owner-fenced', 2]]);
    expect(log.events(TOPIC)[2]).toMatchObject({
      type: 'log.owner-fenced',
      aggregateId: `${TOPIC}:0`,
      payload: { writer: 'billing', partition: 0 },
    });
  });

  it('keeps the epoch of a partition it keeps across a rebalance, appending no marker', async () => {
    const log = new MemoryEventLog();
    const fence = fenceOn(log);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    const first = await fence.epoch(0)!;
    fence.assign([]);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    expect(await fence.epoch(0)).toBe(first);
    expect(fence.holds(0, first)).toBe(true);
    expect(log.events(TOPIC)).toHaveLength(1);
  });

  it('fences a kept partition anew when its view shows another owner marked it in between', async () => {
    const log = new MemoryEventLog();
    const view: View = new Map();
    const fence = fenceOn(log, [], [], view);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    const first = await fence.epoch(0)!;
    view.set(0, first + 5);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    await vi.waitFor(() => expect(fence.holds(0, first)).toBe(false));
    const second = await fence.epoch(0)!;
    expect(second).toBeGreaterThan(first);
    expect(fence.holds(0, second)).toBe(true);
  });

  it('fences a partition that moved away and back anew, and the old epoch stops holding', async () => {
    const log = new MemoryEventLog();
    const fence = fenceOn(log);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    const first = await fence.epoch(0)!;
    fence.assign([{ topic: TOPIC, partition: 1 }]);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    expect(fence.holds(0, first)).toBe(false);
    const second = await fence.epoch(0)!;
    expect(second).toBeGreaterThan(first);
    expect(fence.holds(0, second)).toBe(true);
  });

  it.each([
    ['an empty assignment (a rebalance under way) keeps the epoch', [], true],
    ['an assignment without the partition drops it', [{ topic: TOPIC, partition: 1 }], false],
    ['partitions of other topics are not fenced', [{ topic: 'other', partition: 0 }], false],
  ])('%s', async (_name, next, kept) => {
    const log = new MemoryEventLog();
    const fence = fenceOn(log);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    const epoch = await fence.epoch(0)!;
    fence.assign(next);
    expect(fence.epoch(0) !== undefined).toBe(kept);
    expect(fence.holds(0, epoch)).toBe(kept);
  });

  it('appends the marker again after a failure, reporting it', async () => {
    const log = new MemoryEventLog();
    const append = log.append.bind(log);
    let failures = 1;
    log.append = (...args) => (failures-- > 0 ? Promise.reject(new Error('broker away')) : append(...args));
    const warnings: string[] = [];
    const fence = fenceOn(log, [], warnings);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    expect(await fence.epoch(0)).toBe(0);
    expect(warnings).toEqual(['fencing a partition failed']);
  });
});

describe('OwnerFence.decide', () => {
  it('runs the decision under the current epoch, again under a new one if re-fenced meanwhile', async () => {
    const log = new MemoryEventLog();
    const fence = fenceOn(log);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    const epochs: number[] = [];
    const [command] = await log.append(TOPIC, [testEvent(0)]);
    const decided = await fence.decide(command!, async (epoch) => {
      epochs.push(epoch);
      if (epochs.length === 1) {
        fence.assign([{ topic: TOPIC, partition: 1 }]);
        fence.assign([{ topic: TOPIC, partition: 0 }]);
      }
    });
    expect(decided).toBe(true);
    expect(epochs).toEqual([0, 2]);
  });

  it('fences anew and decides again when a newer marker dropped a decision under a kept epoch', async () => {
    const log = new MemoryEventLog();
    const view: View = new Map();
    const fence = fenceOn(log, [], [], view);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    const epochs: number[] = [];
    const [command] = await log.append(TOPIC, [testEvent(0)]);
    const decided = await fence.decide(command!, async (epoch) => {
      epochs.push(epoch);
      // Another replica held the partition meanwhile: its marker (offset 1) is what the view folded.
      if (epochs.length === 1) view.set(0, 1);
    });
    expect(decided).toBe(true);
    expect(epochs).toEqual([0, 2]);
    expect(log.events(TOPIC).map((e) => e.type)).toEqual([
      'log.owner-fenced',
      'test.happened',
      'log.owner-fenced',
    ]);
  });

  it("decides nothing for a partition that is not this replica's, and says so", async () => {
    const log = new MemoryEventLog();
    const warnings: string[] = [];
    const fence = fenceOn(log, [], warnings);
    fence.assign([{ topic: 'other', partition: 0 }]);
    const [command] = await log.append(TOPIC, [testEvent(0)]);
    let runs = 0;
    expect(await fence.decide(command!, async () => void runs++)).toBe(false);
    expect(runs).toBe(0);
    expect(warnings).toEqual(['command of a partition this replica no longer owns left to its owner']);
  });
});
