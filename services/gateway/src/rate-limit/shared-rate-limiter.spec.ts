import { MemoryProjectionStore, type ProjectionStore } from '@thumbforge/projection-store';
import { describe, expect, it, vi } from 'vitest';
import { RATE_LIMIT_SLOTS, SharedRateLimiter } from './shared-rate-limiter.js';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');

/** A store that counts the inserts of slots, the finds that count a second's slots and the removals. */
function countingStore() {
  const store = new MemoryProjectionStore();
  const calls = { count: 0, insert: 0, delete: 0, sweep: 0 };
  const counting = {
    collection: (name: string) => {
      const collection = store.collection(name);
      return {
        ...collection,
        get: collection.get.bind(collection),
        delete: (...args: Parameters<typeof collection.delete>) => (
          calls.delete++,
          collection.delete(...args)
        ),
        deleteBelow: (...args: Parameters<typeof collection.deleteBelow>) => (
          calls.sweep++,
          collection.deleteBelow(...args)
        ),
        find: (...args: Parameters<typeof collection.find>) => (calls.count++, collection.find(...args)),
        insert: (...args: Parameters<typeof collection.insert>) => (
          calls.insert++,
          collection.insert(...args)
        ),
      };
    },
  } as unknown as ProjectionStore;
  return { store, counting, calls };
}

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

  it("removes past seconds' slots every five seconds, and keeps the last second's", async () => {
    const store = new MemoryProjectionStore();
    const limiter = new SharedRateLimiter(store);
    const s0 = Math.floor(T0 / 1000);
    const seconds = async () =>
      new Set(
        (await store.collection<{ id: string; second: number }>(RATE_LIMIT_SLOTS).find({})).map(
          (s) => s.second,
        ),
      );
    for (let second = 0; second < 7; second++) {
      for (let i = 0; i < 3; i++) await limiter.consume('key:a', 10, T0 + second * 1000 + i);
    }
    // The removal at second 5 took seconds 0 to 3, and runs behind the claim.
    await vi.waitFor(async () => expect(await seconds()).toEqual(new Set([s0 + 4, s0 + 5, s0 + 6])));
  });

  it('claims with one insert while no other replica takes its next slot, and counts only when one did', async () => {
    const { store, counting, calls } = countingStore();
    const mine = new SharedRateLimiter(counting);
    for (let i = 0; i < 3; i++) expect((await mine.consume('key:a', 5, T0 + i)).allowed).toBe(true);
    expect(calls).toMatchObject({ count: 0, insert: 3 });

    // Another replica takes the next two slots: one failed insert, one count, one insert.
    const other = new SharedRateLimiter(store);
    for (let i = 0; i < 2; i++) expect((await other.consume('key:a', 5, T0 + 10)).allowed).toBe(true);
    expect((await mine.consume('key:a', 5, T0 + 20)).allowed).toBe(false);
    expect(calls).toMatchObject({ count: 1, insert: 4 });

    // Once its own claims reach the limit, a replica refuses without asking the store.
    const fresh = countingStore();
    const alone = new SharedRateLimiter(fresh.counting);
    for (let i = 0; i < 2; i++) expect((await alone.consume('key:b', 2, T0)).allowed).toBe(true);
    expect((await alone.consume('key:b', 2, T0 + 1)).allowed).toBe(false);
    expect(fresh.calls).toMatchObject({ count: 0, insert: 2 });
  });

  it("removes every replica's past slots, a dead one's too, with one command every five seconds", async () => {
    const { store, counting, calls } = countingStore();
    const slots = store.collection<{ id: string; key: string; second: number }>(RATE_LIMIT_SLOTS);
    const s0 = Math.floor(T0 / 1000);
    // Left by a replica that died before it removed them.
    await slots.insert({ id: `key:z:${s0 - 30}:0`, key: 'key:z', second: s0 - 30 });
    const [one, two] = [new SharedRateLimiter(counting), new SharedRateLimiter(counting)];
    for (let second = 0; second < 11; second++) {
      for (let i = 0; i < 4; i++) await (i % 2 ? one : two).consume(`key:${i}`, 10, T0 + second * 1000 + i);
    }
    // Each replica at its first claim and five and ten seconds later: no removal by id, no count.
    expect(calls).toMatchObject({ insert: 44, sweep: 6, delete: 0, count: 0 });
    await vi.waitFor(async () =>
      expect(new Set((await slots.find({})).map((s) => s.second))).toEqual(new Set([s0 + 9, s0 + 10])),
    );
  });
});
