import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, LOGGER, type Clock, type Logger } from '@thumbforge/platform';
import {
  AttemptDeliveryUseCase,
  type AttemptDeliveryCommand,
} from '../attempt-delivery/attempt-delivery.usecase.js';
import { WEBHOOK_TIMERS, type Timers } from './timers.js';

/** setTimeout's ceiling; a later due time is served early, which a delivery tolerates. */
const MAX_TIMER_MS = 2_147_483_647;
/** When an attempt's result could not be recorded (the log is down), the same attempt is made again after this. */
const RECORDING_RETRY_MS = 5_000;

/** A delivery to attempt: its job, and its partition of TOPICS.webhooks, whose owner makes the attempts. */
export type ScheduledDelivery = Omit<AttemptDeliveryCommand, 'attempt'>;

/**
 * In-process timers for due attempts, at most one per job. The schedule itself is not durable: it is
 * rebuilt from the delivery projection at start, since every attempt's result is on the log.
 */
@Injectable()
export class DeliveryScheduler {
  private readonly timers = new Map<string, { handle: unknown; partition: number }>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private stopped = false;
  private owned: (partition: number) => boolean = () => true;

  constructor(
    @Inject(WEBHOOK_TIMERS) private readonly clockTimers: Timers,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly attempts: AttemptDeliveryUseCase,
  ) {}

  /** Makes `attempt` of the delivery at `at` (now when it is past); replaces a timer already set for the job. */
  schedule(delivery: ScheduledDelivery, attempt: number, at: Date): void {
    const { jobId, partition } = delivery;
    if (this.stopped || this.inFlight.has(jobId) || !this.owned(partition)) return;
    const existing = this.timers.get(jobId);
    if (existing !== undefined) this.clockTimers.clearTimeout(existing.handle);
    const delay = Math.min(Math.max(0, at.getTime() - this.clock.now().getTime()), MAX_TIMER_MS);
    const handle = this.clockTimers.setTimeout(() => this.run(delivery, attempt), delay);
    this.timers.set(jobId, { handle, partition });
  }

  /**
   * Keeps only the timers of the partitions `owned` accepts, and sets later ones (retries included)
   * only for them: another replica has taken the rest. Attempts in flight finish.
   */
  restrictTo(owned: (partition: number) => boolean): void {
    this.owned = owned;
    for (const [jobId, timer] of this.timers) {
      if (owned(timer.partition)) continue;
      this.clockTimers.clearTimeout(timer.handle);
      this.timers.delete(jobId);
    }
  }

  /** Sets no more timers, drops the pending ones and waits for attempts in flight to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const { handle } of this.timers.values()) this.clockTimers.clearTimeout(handle);
    this.timers.clear();
    await Promise.all(this.inFlight.values());
  }

  private run(delivery: ScheduledDelivery, attempt: number): void {
    const { jobId } = delivery;
    this.timers.delete(jobId);
    const done = this.attempt(delivery, attempt).then((next) => {
      this.inFlight.delete(jobId);
      if (next) this.schedule(delivery, next.attempt, next.at);
    });
    this.inFlight.set(jobId, done);
  }

  private async attempt(
    delivery: ScheduledDelivery,
    attempt: number,
  ): Promise<{ attempt: number; at: Date } | null> {
    try {
      const result = await this.attempts.execute({ ...delivery, attempt });
      return result.kind === 'retry' ? { attempt: result.attempt, at: result.at } : null;
    } catch (error) {
      this.logger.error(
        { err: error, jobId: delivery.jobId, attempt },
        'webhook attempt could not be completed; trying again',
      );
      return { attempt, at: new Date(this.clock.now().getTime() + RECORDING_RETRY_MS) };
    }
  }
}
