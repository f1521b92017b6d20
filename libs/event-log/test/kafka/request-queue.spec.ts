import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  fixKafkajsRequestQueue,
  REQUEST_QUEUE_MODULE,
  type RequestQueueState,
} from '../../src/kafka/request-queue.js';

const require = createRequire(import.meta.url);

type Queue = RequestQueueState & { scheduleCheckPendingRequests(): void };

/** kafkajs' own request queue of one broker connection, as its connections make it. */
function requestQueue(): Queue {
  const RequestQueue = require(REQUEST_QUEUE_MODULE) as new (options: object) => Queue;
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
  };
  return new RequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'localhost:9092',
    logger,
  });
}

describe("kafkajs' request queue, fixed", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('applies to the kafkajs release the project pins', () => {
    expect(fixKafkajsRequestQueue()).toBe(true);
  });

  it.each([
    // Before the fix every row armed a timer; the idle one (the common case) fired after 1 ms, forever.
    { state: 'idle, never throttled', pending: 0, throttledUntil: -1, armed: null, next: 'never' },
    { state: 'idle, throttling over', pending: 0, throttledUntil: 999_000, armed: null, next: 'never' },
    {
      state: 'idle, throttled for 50 ms',
      pending: 0,
      throttledUntil: 1_000_050,
      armed: 50,
      next: 'after 50 ms',
    },
    {
      state: 'a request waiting, not throttled',
      pending: 1,
      throttledUntil: -1,
      armed: 10,
      next: 'after 10 ms',
    },
    {
      state: 'a request waiting, throttled for 50 ms',
      pending: 1,
      throttledUntil: 1_000_050,
      armed: 50,
      next: 'after 50 ms',
    },
  ])('$state: looks again $next', ({ pending, throttledUntil, armed }) => {
    fixKafkajsRequestQueue();
    const queue = requestQueue();
    queue.pending = Array.from({ length: pending }, () => ({}));
    queue.throttledUntil = throttledUntil;
    const looks = vi.spyOn(queue, 'checkPendingRequests').mockImplementation(() => undefined);

    queue.scheduleCheckPendingRequests();
    expect(vi.getTimerCount()).toBe(armed === null ? 0 : 1);
    if (armed === null) return;
    vi.advanceTimersByTime(armed - 1);
    expect(looks).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(looks).toHaveBeenCalledOnce();
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });

  it('keeps one timer while one is armed', () => {
    fixKafkajsRequestQueue();
    const queue = requestQueue();
    queue.pending = [{}];
    vi.spyOn(queue, 'checkPendingRequests').mockImplementation(() => undefined);
    queue.scheduleCheckPendingRequests();
    queue.scheduleCheckPendingRequests();
    expect(vi.getTimerCount()).toBe(1);
  });
});
