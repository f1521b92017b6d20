import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';

/** The part of opossum's CircuitBreaker used here (the package ships no type declarations). */
export interface CircuitBreaker<TArgs extends unknown[], TResult> extends EventEmitter {
  fire(...args: TArgs): Promise<TResult>;
  readonly opened: boolean;
  readonly halfOpen: boolean;
  readonly closed: boolean;
  readonly stats: { fires: number; failures: number; successes: number; rejects: number };
  shutdown(): void;
}

interface BreakerOptions {
  name: string;
  /** false: the action enforces its own deadline (and cancels the request when it passes). */
  timeout: false;
  errorThresholdPercentage: number;
  volumeThreshold: number;
  resetTimeout: number;
  rollingCountTimeout: number;
  rollingCountBuckets: number;
  /** true: the error says nothing about the health of the service and is not counted as a failure. */
  errorFilter: (error: unknown) => boolean;
}

type BreakerConstructor = new <TArgs extends unknown[], TResult>(
  action: (...args: TArgs) => Promise<TResult>,
  options: BreakerOptions,
) => CircuitBreaker<TArgs, TResult>;

const require = createRequire(import.meta.url);
const Breaker = require('opossum') as BreakerConstructor;

/** Error code opossum gives a call it refused because the circuit is open. */
export const CIRCUIT_OPEN = 'EOPENBREAKER';

export interface CircuitOptions {
  /** Calls within the window before the circuit can open; it opens once more than half failed. */
  failuresToOpen: number;
  /** How long the circuit stays open before one trial call is let through. */
  resetTimeoutMs: number;
  /** Window over which failures are counted. */
  windowMs: number;
}

export function createCircuitBreaker<TArgs extends unknown[], TResult>(
  name: string,
  action: (...args: TArgs) => Promise<TResult>,
  options: CircuitOptions,
  isNotAFailure: (error: unknown) => boolean,
): CircuitBreaker<TArgs, TResult> {
  return new Breaker(action, {
    name,
    timeout: false,
    // Opens once `failuresToOpen` calls were made and more than half of them failed.
    volumeThreshold: options.failuresToOpen,
    errorThresholdPercentage: 50,
    resetTimeout: options.resetTimeoutMs,
    rollingCountTimeout: options.windowMs,
    rollingCountBuckets: 10,
    errorFilter: isNotAFailure,
  });
}

export function isCircuitOpen(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === CIRCUIT_OPEN;
}
