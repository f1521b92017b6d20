import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';

/** The part of opossum's CircuitBreaker used here (the package ships no type declarations). */
export interface Breaker<TArgs extends unknown[], TResult> extends EventEmitter {
  readonly name: string;
  fire(...args: TArgs): Promise<TResult>;
  readonly opened: boolean;
  readonly halfOpen: boolean;
  readonly closed: boolean;
  readonly stats: { fires: number; failures: number; successes: number; rejects: number };
  shutdown(): void;
}

interface OpossumOptions {
  name: string;
  /** false: every call carries its own deadline (an abort signal), so opossum need not race it. */
  timeout: false;
  errorThresholdPercentage: number;
  volumeThreshold: number;
  resetTimeout: number;
  rollingCountTimeout: number;
  rollingCountBuckets: number;
  /** true: the error says nothing about the health of the service and is not counted. */
  errorFilter: (error: unknown) => boolean;
}

type OpossumConstructor = new <TArgs extends unknown[], TResult>(
  action: (...args: TArgs) => Promise<TResult>,
  options: OpossumOptions,
) => Breaker<TArgs, TResult>;

const require = createRequire(import.meta.url);
const Opossum = require('opossum') as OpossumConstructor;

/** The code of opossum's rejection of a call it did not make because the circuit is open. */
export const BREAKER_OPEN = 'EOPENBREAKER';

export interface BreakerOptions {
  /** Calls within the window before the circuit can open; it opens once half of them failed. */
  volumeThreshold: number;
  /** How long the circuit stays open before one trial call is let through. */
  resetTimeoutMs: number;
  /** Window over which failures are counted. */
  windowMs: number;
}

export function isBreakerOpen(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === BREAKER_OPEN;
}

/** Every breaker not yet shut down, so metrics can report their states without each owner wiring them. */
const liveBreakers = new Set<Breaker<never[], unknown>>();

export interface BreakerState {
  name: string;
  state: 'closed' | 'open' | 'half-open';
}

export function breakerStates(): BreakerState[] {
  return [...liveBreakers].map((breaker) => ({
    name: breaker.name,
    state: breaker.halfOpen ? 'half-open' : breaker.opened ? 'open' : 'closed',
  }));
}

export function createBreaker<TArgs extends unknown[], TResult>(
  name: string,
  action: (...args: TArgs) => Promise<TResult>,
  options: BreakerOptions,
  isNotAFailure: (error: unknown) => boolean,
): Breaker<TArgs, TResult> {
  const breaker = new Opossum(action, {
    name,
    timeout: false,
    volumeThreshold: options.volumeThreshold,
    errorThresholdPercentage: 50,
    resetTimeout: options.resetTimeoutMs,
    rollingCountTimeout: options.windowMs,
    rollingCountBuckets: 10,
    errorFilter: isNotAFailure,
  });
  const live = breaker as unknown as Breaker<never[], unknown>;
  liveBreakers.add(live);
  breaker.once('shutdown', () => liveBreakers.delete(live));
  return breaker;
}
