/**
 * A least-recently-used cache bounded by a cost budget (bytes, usually): backgrounds, photos, logos
 * and emoji are reused across renders, but a busy process must not keep every one it ever drew.
 */
export class LruCache<V> {
  private readonly entries = new Map<string, { value: V; cost: number }>();
  private total = 0;

  /** `onEvict` gets each value the budget pushes out (not those deleted or replaced). */
  constructor(
    private budget: number,
    private readonly onEvict?: (value: V) => void,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Re-inserting moves the key to the most recent end of the map's order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, cost = 1): void {
    const previous = this.entries.get(key);
    if (previous) {
      this.total -= previous.cost;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, cost });
    this.total += cost;
    this.evict(key);
  }

  /** Changes the budget, evicting the least recently used entries at once if it shrank. */
  resize(budget: number): void {
    this.budget = budget;
    this.evict();
  }

  /** The summed cost of the entries held. */
  get cost(): number {
    return this.total;
  }

  private evict(keep?: string): void {
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.budget || oldest === keep) break;
      this.entries.delete(oldest);
      this.total -= entry.cost;
      this.onEvict?.(entry.value);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.total -= entry.cost;
    this.entries.delete(key);
  }

  /** Least recently used first. */
  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  get size(): number {
    return this.entries.size;
  }
}
