/** The timer functions the scheduler uses, injectable so tests can drive time themselves. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export const WEBHOOK_TIMERS = Symbol.for('thumbforge.webhook-delivery.Timers');
