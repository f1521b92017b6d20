import { createRequire } from 'node:module';

/** What `scheduleCheckPendingRequests` uses of kafkajs' per-connection request queue. */
export interface RequestQueueState {
  pending: unknown[];
  /** Epoch ms until which the broker throttles this connection; -1 when it never did. */
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
}

/** kafkajs' own interval for looking at requests that wait for a free in-flight slot. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** kafkajs' per-connection request queue, whose prototype every connection's queue shares. */
export const REQUEST_QUEUE_MODULE = 'kafkajs/src/network/requestQueue/index.js';

/** The kafkajs release whose request queue `scheduleCheckPendingRequests` replaces the method of. */
const PATCHED_KAFKAJS_VERSION = '2.2.4';

/**
 * When the queue of one broker connection looks again at its waiting requests: only while some wait
 * (soon) or the broker throttles the connection (when that ends). Otherwise the next request sent or
 * answered looks anyway. kafkajs 2.2.4 schedules the look in every case, and with nothing throttled
 * its delay is negative, which timers run after 1 ms: every connection, busy or idle, woke its
 * process a thousand times a second for nothing (kafkajs issues 1556, 1704 and 1751; Node 24 warns
 * `TimeoutNegativeWarning` once).
 */
function scheduleCheckPendingRequests(this: RequestQueueState): void {
  if (this.throttleCheckTimeoutId) return;
  let delay = this.throttledUntil - Date.now();
  if (this.pending.length > 0) delay = delay > 0 ? delay : CHECK_PENDING_REQUESTS_INTERVAL_MS;
  else if (delay <= 0) return;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, delay);
}

/**
 * Puts `scheduleCheckPendingRequests` in place of kafkajs' own, for every connection of the process.
 * kafkajs has had no release since 2.2.4; another version is left as it is, so an upgrade is checked
 * against this fix (`test/kafka/request-queue.spec.ts`) rather than patched blindly.
 */
export function fixKafkajsRequestQueue(): boolean {
  const require = createRequire(import.meta.url);
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== PATCHED_KAFKAJS_VERSION) return false;
  const RequestQueue = require(REQUEST_QUEUE_MODULE) as {
    prototype: { scheduleCheckPendingRequests: () => void };
  };
  RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  return true;
}
