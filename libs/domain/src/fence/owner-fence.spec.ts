import { describe, expect, it } from 'vitest';
import { admitsFact, admittedFacts, FactAdmission, observeFence, OWNER_FENCED } from './owner-fence.js';

const T = 'thumbforge.billing';

function at(offset: number, type: string, fence?: number, partition = 0) {
  return {
    id: `e${partition}.${offset}`,
    type,
    topic: T,
    partition,
    offset,
    ...(fence !== undefined ? { fence } : {}),
  };
}
const marker = (offset: number, partition = 0) => at(offset, OWNER_FENCED, undefined, partition);
const fact = (offset: number, fence?: number, partition = 0) =>
  at(offset, 'billing.credits-reserved', fence, partition);

describe('admitsFact', () => {
  it.each([
    ['an unstamped fact, no marker yet', undefined, fact(3), true],
    ['an unstamped fact after a marker', 7, fact(9), true],
    ['a fact stamped with the current epoch', 7, fact(9, 7), true],
    ['a fact stamped before any marker was folded (a newer writer)', undefined, fact(9, 7), true],
    ['a fact stamped with an older epoch', 7, fact(9, 4), false],
    ['a fact stamped with epoch 0 after a marker at 1', 1, fact(2, 0), false],
    ['the marker itself', 7, marker(7), false],
  ])('%s', (_name, epoch, event, admitted) => {
    expect(admitsFact(epoch, event)).toBe(admitted);
  });
});

describe('observeFence', () => {
  it.each([
    ['a marker sets its partition epoch to its offset', {}, marker(5), { [`${T}:0`]: 5 }],
    ['a later marker replaces it', { [`${T}:0`]: 5 }, marker(9), { [`${T}:0`]: 9 }],
    ['partitions are independent', { [`${T}:0`]: 5 }, marker(2, 1), { [`${T}:0`]: 5, [`${T}:1`]: 2 }],
    ['a fact changes nothing', { [`${T}:0`]: 5 }, fact(6, 5), { [`${T}:0`]: 5 }],
  ])('%s', (_name, before, event, after) => {
    expect(observeFence(before, event)).toEqual(after);
  });
});

describe('admittedFacts', () => {
  it.each([
    ['no markers: everything', [fact(0), fact(1, 0)], ['e0.0', 'e0.1']],
    [
      'the old owner appends after the new owner fenced: dropped',
      [marker(0), fact(1, 0), marker(2), fact(3, 0), fact(4, 2)],
      ['e0.1', 'e0.4'],
    ],
    [
      'the old owner landed before the new marker: kept',
      [marker(0), fact(1, 0), fact(2, 0), marker(3), fact(4, 3)],
      ['e0.1', 'e0.2', 'e0.4'],
    ],
    [
      'a marker on another partition fences nothing here',
      [marker(0, 0), marker(0, 1), fact(1, 0, 0), marker(1, 1), fact(2, 0, 0), fact(2, 0, 1)],
      ['e0.1', 'e0.2'],
    ],
  ])('%s', (_name, events, ids) => {
    expect([...admittedFacts(events)].map((e) => e.id)).toEqual(ids);
  });
});

describe('FactAdmission', () => {
  it.each([
    ['unstamped facts pass', [fact(0), fact(1)], [true, true]],
    [
      'a stale stamp after a newer marker is dropped',
      [marker(0), fact(1, 0), marker(2), fact(3, 0)],
      [false, true, false, false],
    ],
    [
      "started mid-partition: the newer owner's stamp reveals the epoch",
      [fact(5, 4), fact(6, 2), fact(7, 4)],
      [true, false, true],
    ],
    [
      'started mid-partition, a stale fact before any sign of the newer owner passes',
      [fact(5, 2), fact(6, 4)],
      [true, true],
    ],
    ['partitions are independent', [fact(1, 4, 0), fact(1, 2, 1)], [true, true]],
  ])('%s', (_name, events, admitted) => {
    const admission = new FactAdmission();
    expect(events.map((event) => admission.admits(event))).toEqual(admitted);
  });

  it('never drops a fact that the folds admit', () => {
    const log = [
      marker(0),
      fact(1, 0),
      fact(2, 0),
      marker(3),
      fact(4, 0),
      fact(5, 3),
      marker(6),
      fact(7, 3),
      fact(8, 6),
    ];
    const admission = new FactAdmission();
    const admitted = log.filter((event) => admission.admits(event)).map((e) => e.id);
    expect(admitted).toEqual([...admittedFacts(log)].map((e) => e.id));
  });
});
