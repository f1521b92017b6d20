import { MemoryProjectionStore, type ProjectionStore } from '@thumbforge/projection-store';
import { describe, expect, it, vi } from 'vitest';
import { RATE_LIMIT_SLOTS, SharedRateLimiter } from './shared-rate-limiter.js';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');

/**
 * A store that counts the inserts of slots, the finds that count a second's slots, the searches of a
 * key's slots of every second and the removals.
 */
function countingStore() {
  const store = new MemoryProjectionStore();
  const calls = { count: 0, insert: 0, search: 0, delete: 0 };
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
        find: (...args: Parameters<typeof collection.find>) => {
          if ('second' in args[0]) calls.count++;
          else calls.search++;
          return collection.find(...args);
        },
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

  it("keeps at most one second of a key's slots", async () => {
    const store = new MemoryProjectionStore();
    const limiter = new SharedRateLimiter(store);
    for (let second = 0; second < 5; second++) {
      for (let i = 0; i < 3; i++) await limiter.consume('key:a', 10, T0 + second * 1000 + i);
    }
    // The removal of earlier seconds runs behind the claim.
    await vi.waitFor(async () => {
      const slots = await store.collection<{ id: string; second: number }>(RATE_LIMIT_SLOTS).find({});
      expect(slots).toHaveLength(3);
      expect(new Set(slots.map((s) => s.second))).toEqual(new Set([Math.floor(T0 / 1000) + 4]));
    });
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

  it("removes its own claims of earlier seconds by id, searching a key's slots only when it first sees the key", async () => {
    const { store, counting, calls } = countingStore();
    const limiter = new SharedRateLimiter(counting);
    const slots = store.collection<{ id: string; second: number }>(RATE_LIMIT_SLOTS);
    for (let second = 0; second < 5; second++) {
      for (let i = 0; i < 3; i++) await limiter.consume('key:a', 10, T0 + second * 1000 + i);
      await vi.waitFor(async () => expect(await slots.find({})).toHaveLength(3));
    }
    // The first second's claim searched (there was nothing yet); the next four removed three ids each.
    expect(calls).toMatchObject({ search: 1, delete: 12, insert: 15, count: 0 });
  });

  it('finds the slots another replica took above its own within a minute', async () => {
    const store = new MemoryProjectionStore();
    const [mine, other] = [new SharedRateLimiter(store), new SharedRateLimiter(store)];
    const slots = store.collection<{ id: string; second: number }>(RATE_LIMIT_SLOTS);
    const s0 = Math.floor(T0 / 1000);
    const idsLeft = async () => (await slots.find({})).map((s) => s.id).sort();
    for (let i = 0; i < 2; i++) await mine.consume('key:a', 10, T0 + i);
    await other.consume('key:a', 10, T0 + 5);
    expect(await idsLeft()).toEqual([0, 1, 2].map((slot) => `key:a:${s0}:${slot}`));

    // A second later this replica names its two claims; the other replica's slot stays for now.
    await mine.consume('key:a', 10, T0 + 1000);
    await vi.waitFor(async () => expect(await idsLeft()).toEqual([`key:a:${s0}:2`, `key:a:${s0 + 1}:0`]));
    // A minute after its last search, it searches again and removes what it could not name.
    await mine.consume('key:a', 10, T0 + 60_000);
    await vi.waitFor(async () => expect(await idsLeft()).toEqual([`key:a:${s0 + 60}:0`]));
  });
});
