import type { ProjectionStore } from '@thumbforge/projection-store';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

interface SlotDoc {
  /** `${key}:${second}:${slot}` */
  id: string;
  key: string;
  second: number;
}

export const RATE_LIMIT_SLOTS = 'gateway_rate_limit_slots';

/** Keys whose next slot a replica remembers before it forgets those of earlier seconds. */
const REMEMBERED_KEYS = 10_000;

/** Seconds between two removals of every key's slots of past seconds, per replica. */
const SWEEP_EVERY_SECONDS = 5;

interface Remembered {
  second: number;
  /** The slot after this replica's last claim in `second`: every slot below it is taken. */
  slot: number;
}

/**
 * Requests per second per key, shared by every gateway replica through the projection store. Each
 * allowed request claims one of the `perSecond` slots of the current second by inserting a document
 * whose id names the slot: an insert of an existing id fails atomically on every MongoDB-wire server,
 * whereas a counter's `$inc` loses updates on FerretDB. Fixed one-second windows, so a burst that
 * straddles a boundary can reach twice the rate for a moment.
 *
 * A replica claims slots in order and remembers, per key, the slot after its last claim in the current
 * second: unless another replica took it meanwhile, a request costs one insert. Only then does it count
 * the second's slots and go on from there.
 *
 * Slots of past seconds are removed in one command every few seconds while requests come, whoever
 * claimed them (other replicas, one that died): one delete per request cost the document store as much
 * as the claim. The second before the current one stays, for replicas whose clocks run a little behind.
 */
export class SharedRateLimiter implements RateLimiter {
  private readonly next = new Map<string, Remembered>();
  /** The second of this replica's last removal of past slots. */
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly store: ProjectionStore) {}

  private get slots() {
    return this.store.collection<SlotDoc>(RATE_LIMIT_SLOTS);
  }

  async consume(key: string, perSecond: number, nowMs: number): Promise<RateLimitDecision> {
    const second = Math.floor(nowMs / 1000);
    const limit = Math.max(1, Math.floor(perSecond));
    const allowed = { allowed: true, limit: perSecond, retryAfterSeconds: 0 };
    const refused = { allowed: false, limit: perSecond, retryAfterSeconds: 1 };
    const remembered = this.next.get(key);
    // Slots are claimed in order, so every slot below the remembered one is taken.
    const first = remembered?.second === second ? remembered.slot : 0;
    if (first >= limit) return refused;
    if (await this.claim(key, second, first)) return allowed;
    const taken = (await this.slots.find({ key, second })).length;
    for (let slot = Math.max(taken, first + 1); slot < limit; slot++) {
      if (await this.claim(key, second, slot)) return allowed;
    }
    this.remember(key, second, limit);
    return refused;
  }

  private async claim(key: string, second: number, slot: number): Promise<boolean> {
    if (!(await this.slots.insert({ id: `${key}:${second}:${slot}`, key, second }))) return false;
    this.remember(key, second, slot + 1);
    if (second - this.sweptAt >= SWEEP_EVERY_SECONDS) {
      this.sweptAt = second;
      void this.slots.deleteBelow('second', second - 1).catch(() => undefined);
    }
    return true;
  }

  private remember(key: string, second: number, slot: number): void {
    if (this.next.size >= REMEMBERED_KEYS) {
      for (const [other, at] of this.next) if (at.second < second) this.next.delete(other);
    }
    this.next.set(key, { second, slot });
  }
}
