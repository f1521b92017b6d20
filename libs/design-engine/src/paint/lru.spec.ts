import { describe, expect, it } from 'vitest';
import { LruCache } from './lru.js';

describe('LruCache', () => {
  it('evicts the least recently used entries past its budget', () => {
    const cache = new LruCache<string>(10);
    cache.set('a', 'A', 4);
    cache.set('b', 'B', 4);
    expect(cache.get('a')).toBe('A');
    cache.set('c', 'C', 4);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('A');
    expect(cache.get('c')).toBe('C');
  });

  it('keeps an entry larger than the budget until the next one', () => {
    const cache = new LruCache<string>(10);
    cache.set('big', 'X', 50);
    expect(cache.get('big')).toBe('X');
    cache.set('small', 'y', 1);
    expect(cache.get('big')).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('replaces and deletes', () => {
    const cache = new LruCache<number>(10);
    cache.set('k', 1, 5);
    cache.set('k', 2, 5);
    expect(cache.get('k')).toBe(2);
    cache.delete('k');
    expect(cache.size).toBe(0);
  });

  it.each([
    { budget: 8, kept: ['c', 'd'], cost: 8 },
    { budget: 12, kept: ['b', 'c', 'd'], cost: 12 },
    { budget: 0, kept: [], cost: 0 },
    { budget: 100, kept: ['a', 'b', 'c', 'd'], cost: 16 },
  ])('resized to $budget keeps the most recent entries that fit: $kept', ({ budget, kept, cost }) => {
    const cache = new LruCache<string>(100);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, key.toUpperCase(), 4);
    cache.resize(budget);
    expect(['a', 'b', 'c', 'd'].filter((key) => cache.get(key) !== undefined)).toEqual(kept);
    expect(cache.cost).toBe(cost);
  });

  it('hands onEvict each value the budget pushes out, and none deleted or replaced', () => {
    const evicted: string[] = [];
    const cache = new LruCache<string>(8, (value) => evicted.push(value));
    cache.set('a', 'A', 4);
    cache.set('b', 'B', 4);
    cache.set('c', 'C', 4);
    cache.set('c', 'C2', 4);
    cache.delete('b');
    cache.resize(0);
    expect(evicted).toEqual(['A', 'C2']);
  });
});
