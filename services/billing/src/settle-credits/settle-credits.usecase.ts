import { Inject, Injectable } from '@nestjs/common';
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
 * A job's reservation is not on the log even once the ledger holds all of it: the log retries the
 * outcome, then dead-letters it.
 */
export class ReservationNotYetKnownError extends Error {
  constructor(accountId: string, jobId: string) {
    super(`no reservation of job ${jobId} is on the log for account ${accountId} yet`);
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
  ) {}

  /**
   * Settles, or, when this replica's ledger does not hold the job's reservation yet, waits until the
   * ledger holds everything on the billing log now and settles then. Rendering starts only from an
   * admitted reservation, so the reservation of any outcome is on the log before the outcome: the wait
   * ends however long the ledger's writer takes (a rebalance can hand it on several times), and no
   * delivery of the outcome is spent on it. A fired `signal` (the replica stopping) ends the wait, so
   * the outcome goes to the next owner of its partition instead of holding up the shutdown.
   */
  async execute(command: SettleCreditsCommand, signal?: AbortSignal): Promise<StoredEvent[]> {
    const settled = await this.settle(command);
    if (settled) return settled;
    // Outside the account's lock: its reservations and other outcomes go on meanwhile.
    await untilAborted(this.ledgers.reachedEnds(), signal);
    const late = await this.settle(command);
    if (late) return late;
    throw new ReservationNotYetKnownError(command.accountId, command.jobId);
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

/** `work`, or the signal's reason once it fires first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  // The work may still end after the signal (a projection closing rejects its waits): nobody awaits
  // it then, including when the signal had fired before the call.
  work.catch(() => undefined);
  signal.throwIfAborted();
  let stop: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason as Error);
    signal.addEventListener('abort', stop, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', stop));
}
