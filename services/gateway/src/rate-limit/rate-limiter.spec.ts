import { describe, expect, it } from 'vitest';
import { TokenBucketRateLimiter } from './rate-limiter.js';

describe('TokenBucketRateLimiter', () => {
  it.each([
    // perSecond, request times (ms), expected allowed pattern
    [1, [0, 10, 999, 1000], [true, false, false, true]],
    [2, [0, 1, 2, 500, 1000], [true, true, false, true, true]],
    [5, [0, 0, 0, 0, 0, 0], [true, true, true, true, true, false]],
    [20, Array.from({ length: 21 }, () => 0), [...Array.from({ length: 20 }, () => true), false]],
  ])('%i/s over %j', async (perSecond, times, expected) => {
    const limiter = new TokenBucketRateLimiter();
    const allowed: boolean[] = [];
    for (const t of times) allowed.push((await limiter.consume('k', perSecond, t)).allowed);
    expect(allowed).toEqual(expected);
  });

  it('keeps keys apart and tells when to retry', async () => {
    const limiter = new TokenBucketRateLimiter();
    expect((await limiter.consume('a', 1, 0)).allowed).toBe(true);
    expect((await limiter.consume('b', 1, 0)).allowed).toBe(true);
    const denied = await limiter.consume('a', 1, 100);
    expect(denied).toEqual({ allowed: false, limit: 1, retryAfterSeconds: 1 });
  });
});
