/** Time as a port: billing periods and webhook schedules are tested with a clock the test controls. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const CLOCK = Symbol.for('thumbforge.Clock');
