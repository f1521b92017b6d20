import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, LOGGER, type Clock, type Logger } from '@thumbforge/platform';
import { AttemptDeliveryUseCase } from '../attempt-delivery/attempt-delivery.usecase.js';
import { WEBHOOK_TIMERS, type Timers } from './timers.js';

/** setTimeout's ceiling; a later due time is served early, which a delivery tolerates. */
const MAX_TIMER_MS = 2_147_483_647;
/** When an attempt's result could not be recorded (the log is down), the same attempt is made again after this. */
const RECORDING_RETRY_MS = 5_000;

/**
 * In-process timers for due attempts, at most one per job. The schedule itself is not durable: it is
 * rebuilt from the delivery projection at start, since every attempt's result is on the log.
 */
@Injectable()
export class DeliveryScheduler {
  private readonly timers = new Map<string, unknown>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private stopped = false;
  private owned: (jobId: string) => boolean = () => true;

  constructor(
    @Inject(WEBHOOK_TIMERS) private readonly clockTimers: Timers,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly attempts: AttemptDeliveryUseCase,
  ) {}

  /** Makes `attempt` for the job at `at` (now when it is past); replaces a timer already set for the job. */
  schedule(jobId: string, attempt: number, at: Date): void {
    if (this.stopped || this.inFlight.has(jobId) || !this.owned(jobId)) return;
    const existing = this.timers.get(jobId);
    if (existing !== undefined) this.clockTimers.clearTimeout(existing);
    const delay = Math.min(Math.max(0, at.getTime() - this.clock.now().getTime()), MAX_TIMER_MS);
    this.timers.set(
      jobId,
      this.clockTimers.setTimeout(() => this.run(jobId, attempt), delay),
    );
  }

  /**
   * Keeps only the timers of jobs `owned` accepts, and sets later ones (retries included) only for
   * them: another replica has taken the rest. Attempts in flight finish.
   */
  restrictTo(owned: (jobId: string) => boolean): void {
    this.owned = owned;
    for (const [jobId, handle] of this.timers) {
      if (owned(jobId)) continue;
      this.clockTimers.clearTimeout(handle);
      this.timers.delete(jobId);
    }
  }

  /** Sets no more timers, drops the pending ones and waits for attempts in flight to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const handle of this.timers.values()) this.clockTimers.clearTimeout(handle);
    this.timers.clear();
    await Promise.all(this.inFlight.values());
  }

  private run(jobId: string, attempt: number): void {
    this.timers.delete(jobId);
    const done = this.attempt(jobId, attempt).then((next) => {
      this.inFlight.delete(jobId);
      if (next) this.schedule(jobId, next.attempt, next.at);
    });
    this.inFlight.set(jobId, done);
  }

  private async attempt(jobId: string, attempt: number): Promise<{ attempt: number; at: Date } | null> {
    try {
      const result = await this.attempts.execute({ jobId, attempt });
      return result.kind === 'retry' ? { attempt: result.attempt, at: result.at } : null;
    } catch (error) {
      this.logger.error(
        { err: error, jobId, attempt },
        'webhook attempt could not be completed; trying again',
      );
      return { attempt, at: new Date(this.clock.now().getTime() + RECORDING_RETRY_MS) };
    }
  }
}
