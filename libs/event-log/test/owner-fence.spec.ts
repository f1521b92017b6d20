import type { StoredEvent } from '@thumbforge/contracts';
import { describe, expect, it } from 'vitest';
import { OwnerFence, type EventLog } from '../src/index.js';
import { MemoryEventLog, testEvent } from '../src/testing/index.js';

const TOPIC = 'thumbforge.billing';

function fenceOn(log: EventLog, reached: StoredEvent[] = [], warnings: string[] = []) {
  return new OwnerFence({
    log,
    topic: TOPIC,
    writer: 'billing',
    reached: async (marker) => {
      reached.push(marker);
    },
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

  it('re-fences a partition on every new assignment, and the old epoch stops holding', async () => {
    const log = new MemoryEventLog();
    const fence = fenceOn(log);
    fence.assign([{ topic: TOPIC, partition: 0 }]);
    const first = await fence.epoch(0)!;
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
      if (epochs.length === 1) fence.assign([{ topic: TOPIC, partition: 0 }]);
    });
    expect(decided).toBe(true);
    expect(epochs).toEqual([0, 2]);
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
