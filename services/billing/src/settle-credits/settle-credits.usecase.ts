import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { isEvent, type StoredEvent } from '@thumbforge/contracts';
import { decideSettlement } from '@thumbforge/domain';
import { CLOCK, LOGGER, type Clock, type Logger } from '@thumbforge/platform';
import { countCredits } from '@thumbforge/telemetry';
import { LedgerProjection } from '../ledger/ledger-projection.js';

export interface SettleCreditsCommand {
  /** Id of the `render.succeeded` / `render.failed` event that ends the job. */
  commandId: string;
  accountId: string;
  jobId: string;
  outcome: 'captured' | 'released';
  /** Why credits are released (the render error). */
  reason?: string;
}

/**
 * How long an outcome waits, per delivery, for its reservation to reach this replica's projection
 * before it fails and the log retries it (5 deliveries, then the dead-letter topic). The ledger's
 * writer can be frozen past the group's 6 s session timeout in a rebalance, and the next writer then
 * resumes from saved positions: a wait this long outlasts that, where the log's own retries (1.5 s in
 * all) did not.
 */
export const RESERVATION_WAIT_MS = Symbol.for('thumbforge.billing.ReservationWaitMs');
const DEFAULT_RESERVATION_WAIT_MS = 15_000;
const FIRST_LOOK_MS = 25;
const LAST_LOOK_MS = 1_000;

/** A job's reservation is still unknown to this replica's projection; the log retries the event. */
export class ReservationNotYetKnownError extends Error {
  constructor(accountId: string, jobId: string) {
    super(`no reservation of job ${jobId} is known for account ${accountId} yet`);
    this.name = 'ReservationNotYetKnownError';
  }
}

/**
 * Captures a finished job's credits or releases a failed one's. Outcomes are delivered at least once:
 * a job whose reservation is already settled yields nothing, so nothing is charged or refunded twice.
 */
@Injectable()
export class SettleCreditsUseCase {
  constructor(
    private readonly ledgers: LedgerProjection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    @Optional()
    @Inject(RESERVATION_WAIT_MS)
    private readonly reservationWaitMs: number = DEFAULT_RESERVATION_WAIT_MS,
  ) {}

  /**
   * Settles, looking again (25 ms, doubling to 1 s) while the reservation is not projected yet. A
   * fired `signal` (the replica stopping) ends the wait at once, so the outcome is left to the next
   * owner of its partition instead of holding up the shutdown.
   */
  async execute(command: SettleCreditsCommand, signal?: AbortSignal): Promise<StoredEvent[]> {
    const deadline = performance.now() + this.reservationWaitMs;
    for (let look = FIRST_LOOK_MS; ; look = Math.min(look * 2, LAST_LOOK_MS)) {
      const settled = await this.settle(command);
      if (settled) return settled;
      const left = deadline - performance.now();
      if (left <= 0) throw new ReservationNotYetKnownError(command.accountId, command.jobId);
      // Outside the account's lock: its reservations and other outcomes go on meanwhile.
      await sleep(Math.min(look, left), undefined, { signal });
    }
  }

  /** The facts written, or undefined when the job's reservation is not projected here yet. */
  private settle({
    commandId,
    accountId,
    jobId,
    outcome,
    reason,
  }: SettleCreditsCommand): Promise<StoredEvent[] | undefined> {
    return this.ledgers.exclusive(accountId, async () => {
      const state = await this.ledgers.ledger(accountId);
      if (!state) {
        this.logger.warn({ accountId, jobId, commandId }, 'render outcome for an unknown account ignored');
        return [];
      }
      // Render outcomes are keyed by job, reservations by account: with several replicas, the outcome
      // can arrive before this replica has projected the reservation. Looking again lets it catch up. The
      // projection writes the job's billing before the ledger, so a job reserved that the ledger read
      // above does not hold is one caught between those writes, not one settled.
      const billing = await this.ledgers.jobBilling(jobId);
      if (billing === undefined || (billing === 'reserved' && !(jobId in state.reservations)))
        return undefined;
      const facts = decideSettlement(state, jobId, outcome, reason, {
        causationId: commandId,
        at: this.clock.now(),
      });
      const stored = await this.ledgers.commit(accountId, facts);
      // Counted from the facts written: a re-delivered outcome writes none and counts nothing.
      for (const fact of stored) {
        if (isEvent(fact, 'billing.credits-captured'))
          countCredits('captured', state.plan, fact.payload.amount);
        if (isEvent(fact, 'billing.credits-released'))
          countCredits('released', state.plan, fact.payload.amount);
      }
      return stored;
    });
  }
}
