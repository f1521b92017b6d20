import { describe, expect, it } from 'vitest';
import { BREAKER_OPEN, breakerStates, createBreaker, isBreakerOpen } from '../src/index.js';

const options = { volumeThreshold: 2, resetTimeoutMs: 60, windowMs: 10_000 };

describe('createBreaker', () => {
  it('opens after the threshold of failures and then refuses without calling the action', async () => {
    let calls = 0;
    const breaker = createBreaker(
      'test',
      async () => {
        calls++;
        throw new Error('down');
      },
      options,
      () => false,
    );
    await expect(breaker.fire()).rejects.toThrow('down');
    await expect(breaker.fire()).rejects.toThrow('down');
    expect(breaker.opened).toBe(true);
    const refused = await breaker.fire().catch((e: unknown) => e);
    expect(isBreakerOpen(refused)).toBe(true);
    expect((refused as { code: string }).code).toBe(BREAKER_OPEN);
    expect(calls).toBe(2);
    breaker.shutdown();
  });

  it('does not count errors the filter says are not failures', async () => {
    const breaker = createBreaker(
      'test',
      async () => {
        throw new Error('refused');
      },
      options,
      () => true,
    );
    for (let i = 0; i < 5; i++) await expect(breaker.fire()).rejects.toThrow('refused');
    expect(breaker.opened).toBe(false);
    expect(breaker.stats.failures).toBe(0);
    breaker.shutdown();
  });

  it('lets one trial call through after the reset timeout and closes when it succeeds', async () => {
    let fail = true;
    const breaker = createBreaker(
      'test',
      async (x: number) => {
        if (fail) throw new Error('down');
        return x * 2;
      },
      options,
      () => false,
    );
    await expect(breaker.fire(1)).rejects.toThrow();
    await expect(breaker.fire(1)).rejects.toThrow();
    expect(breaker.opened).toBe(true);
    fail = false;
    await new Promise((r) => setTimeout(r, 100));
    expect(breaker.halfOpen).toBe(true);
    expect(await breaker.fire(4)).toBe(8);
    expect(breaker.closed).toBe(true);
    breaker.shutdown();
  });

  it('lists every live breaker with its state until it is shut down', async () => {
    const breaker = createBreaker(
      'listed',
      async () => {
        throw new Error('down');
      },
      options,
      () => false,
    );
    const listed = () => breakerStates().filter((b) => b.name === 'listed');
    expect(listed()).toEqual([{ name: 'listed', state: 'closed' }]);
    await breaker.fire().catch(() => undefined);
    await breaker.fire().catch(() => undefined);
    expect(listed()).toEqual([{ name: 'listed', state: 'open' }]);
    breaker.shutdown();
    expect(listed()).toEqual([]);
  });
});
