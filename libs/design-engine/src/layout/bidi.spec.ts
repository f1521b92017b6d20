import { describe, expect, it } from 'vitest';
import { fragmentsOf, titleBidi, visualOrder } from './bidi.js';

describe('titleBidi', () => {
  it.each([
    ['Hello', 'ltr'],
    ['مرحبا بالعالم', 'rtl'],
    ['שלום עולם', 'rtl'],
    ['2024 مرحبا', 'rtl'],
    ['123', 'ltr'],
  ] as const)('%s is %s', (text, direction) => {
    expect(titleBidi(text).direction).toBe(direction);
  });
});

describe('fragmentsOf', () => {
  const fragments = (title: string) => {
    const { levels } = titleBidi(title);
    return fragmentsOf(title, 0, levels).map((f) => [f.text, f.level]);
  };
  it.each([
    // Numbers inside right-to-left text rise a level: they are shaped, and read, left to right.
    [
      'ב-2026',
      [
        ['ב-', 1],
        ['2026', 2],
      ],
    ],
    [
      'في ٣٠ يومًا',
      [
        ['في ', 1],
        ['٣٠', 2],
        [' يومًا', 1],
      ],
    ],
    ['(مجاناً)', [['(مجاناً)', 1]]],
    [
      'Learn عربي fast',
      [
        ['Learn ', 0],
        ['عربي', 1],
        [' fast', 0],
      ],
    ],
  ] as const)('cuts %s where the level changes', (title, expected) => {
    expect(fragments(title)).toEqual(expected);
  });
});

describe('visualOrder (rule L2)', () => {
  it.each([
    [
      [0, 0, 0],
      [0, 1, 2],
    ],
    [
      [1, 1, 1],
      [2, 1, 0],
    ],
    [
      [0, 1, 1, 0],
      [0, 2, 1, 3],
    ],
    [
      [1, 2, 2, 1],
      [3, 1, 2, 0],
    ],
    [
      [1, 2, 1, 2, 1],
      [4, 3, 2, 1, 0],
    ],
    [[], []],
  ])('orders levels %j as %j', (levels, order) => {
    expect(visualOrder(levels)).toEqual(order);
  });
});
