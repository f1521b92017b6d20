/**
 * A least-recently-used cache bounded by a cost budget (bytes, usually): backgrounds, photos, logos
 * and emoji are reused across renders, but a busy process must not keep every one it ever drew.
 */
export class LruCache<V> {
  private readonly entries = new Map<string, { value: V; cost: number }>();
  private total = 0;

  constructor(private readonly budget: number) {}

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
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.budget || oldest === key) break;
      this.entries.delete(oldest);
      this.total -= entry.cost;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.total -= entry.cost;
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
