/**
 * Requests per second per key. The embedded limiter is a token bucket in process memory; in cluster
 * mode the same port gets an adapter shared by all gateway replicas.
 */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Whole seconds until a request would be allowed again. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Async: a shared limiter (cluster mode) asks its store. */
  consume(key: string, perSecond: number, nowMs: number): Promise<RateLimitDecision>;
}

export const RATE_LIMITER = Symbol.for('thumbforge.RateLimiter');

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class TokenBucketRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  async consume(key: string, perSecond: number, nowMs: number): Promise<RateLimitDecision> {
    const bucket = this.buckets.get(key) ?? { tokens: perSecond, updatedMs: nowMs };
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * perSecond);
    bucket.updatedMs = nowMs;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 100_000) this.evictIdle(nowMs);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, limit: perSecond, retryAfterSeconds: 0 };
    }
    return {
      allowed: false,
      limit: perSecond,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)),
    };
  }

  private evictIdle(nowMs: number): void {
    for (const [key, bucket] of this.buckets) if (nowMs - bucket.updatedMs > 10_000) this.buckets.delete(key);
  }
}
