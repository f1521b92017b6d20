import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_SLOTS, SharedRateLimiter } from './shared-rate-limiter.js';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');

describe('SharedRateLimiter', () => {
  it('gives two replicas one limit per key and second between them', async () => {
    const store = new MemoryProjectionStore();
    const [one, two] = [new SharedRateLimiter(store), new SharedRateLimiter(store)];
    const decisions = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).consume('key:a', 5, T0 + i * 10)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    const refused = decisions.find((d) => !d.allowed)!;
    expect(refused).toEqual({ allowed: false, limit: 5, retryAfterSeconds: 1 });
    // Another key has its own slots.
    expect((await one.consume('key:b', 5, T0 + 100)).allowed).toBe(true);
  });

  it.each([
    ['the same second', 900, false],
    ['the next second', 1000, true],
    ['much later', 60_000, true],
  ])('after using up the limit, a request in %s is allowed: %s', async (_name, laterMs, allowed) => {
    const limiter = new SharedRateLimiter(new MemoryProjectionStore());
    for (let i = 0; i < 2; i++) expect((await limiter.consume('key:a', 2, T0)).allowed).toBe(true);
    expect((await limiter.consume('key:a', 2, T0 + laterMs)).allowed).toBe(allowed);
  });

  it("keeps at most one second of a key's slots", async () => {
    const store = new MemoryProjectionStore();
    const limiter = new SharedRateLimiter(store);
    for (let second = 0; second < 5; second++) {
      for (let i = 0; i < 3; i++) await limiter.consume('key:a', 10, T0 + second * 1000 + i);
    }
    const slots = await store.collection<{ id: string; second: number }>(RATE_LIMIT_SLOTS).find({});
    expect(slots).toHaveLength(3);
    expect(new Set(slots.map((s) => s.second))).toEqual(new Set([Math.floor(T0 / 1000) + 4]));
  });
});
