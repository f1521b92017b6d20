import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './request-context.js';

const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('nestsDeeperThan', () => {
  it.each([
    ['a string', 'x', 0, false],
    ['null', null, 0, false],
    ['an empty object at max 0', {}, 0, true],
    ['a flat body', { title: 't', usePhoto: true }, 1, false],
    ['depth 32 at the limit', nested(32), MAX_JSON_DEPTH, false],
    ['depth 33 over the limit', nested(33), MAX_JSON_DEPTH, true],
    ['depth 5,000', nested(5_000), MAX_JSON_DEPTH, true],
    ['a deep branch beside shallow ones', { a: 1, b: { c: nested(40) } }, MAX_JSON_DEPTH, true],
  ])('%s → %s', (_name, value, max, expected) => {
    expect(nestsDeeperThan(value, max)).toBe(expected);
  });
});
