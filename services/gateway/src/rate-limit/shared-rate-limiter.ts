import type { ProjectionStore } from '@thumbforge/projection-store';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

interface SlotDoc {
  /** `${key}:${second}:${slot}` */
  id: string;
  key: string;
  second: number;
}

export const RATE_LIMIT_SLOTS = 'gateway_rate_limit_slots';

/**
 * Requests per second per key, shared by every gateway replica through the projection store. Each
 * allowed request claims one of the `perSecond` slots of the current second by inserting a document
 * whose id names the slot: an insert of an existing id fails atomically on every MongoDB-wire server,
 * whereas a counter's `$inc` loses updates on FerretDB. Fixed one-second windows, so a burst that
 * straddles a boundary can reach twice the rate for a moment; the first claim of a second removes the
 * key's slots of earlier seconds, so a key keeps at most one second of slots.
 */
export class SharedRateLimiter implements RateLimiter {
  constructor(private readonly store: ProjectionStore) {}

  private get slots() {
    return this.store.collection<SlotDoc>(RATE_LIMIT_SLOTS);
  }

  async consume(key: string, perSecond: number, nowMs: number): Promise<RateLimitDecision> {
    const second = Math.floor(nowMs / 1000);
    const limit = Math.max(1, Math.floor(perSecond));
    const taken = (await this.slots.find({ key, second })).length;
    for (let slot = taken; slot < limit; slot++) {
      if (await this.slots.insert({ id: `${key}:${second}:${slot}`, key, second })) {
        if (slot === 0) await this.dropEarlierSeconds(key, second);
        return { allowed: true, limit: perSecond, retryAfterSeconds: 0 };
      }
    }
    return { allowed: false, limit: perSecond, retryAfterSeconds: 1 };
  }

  private async dropEarlierSeconds(key: string, second: number): Promise<void> {
    const earlier = (await this.slots.find({ key })).filter((doc) => doc.second < second);
    await Promise.all(earlier.map((doc) => this.slots.delete(doc.id)));
  }
}
