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

/** A job's reservation is unknown to this replica's projection yet; the log retries the event. */
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
  ) {}

  execute({ commandId, accountId, jobId, outcome, reason }: SettleCreditsCommand): Promise<StoredEvent[]> {
    return this.ledgers.exclusive(accountId, async () => {
      const state = await this.ledgers.ledger(accountId);
      if (!state) {
        this.logger.warn({ accountId, jobId, commandId }, 'render outcome for an unknown account ignored');
        return [];
      }
      // Render outcomes are keyed by job, reservations by account: with several replicas, the outcome
      // can arrive before this replica has projected the reservation. Retrying lets it catch up. The
      // projection writes the job's billing before the ledger, so a job reserved that the ledger read
      // above does not hold is one caught between those writes, not one settled.
      const billing = await this.ledgers.jobBilling(jobId);
      if (billing === undefined || (billing === 'reserved' && !(jobId in state.reservations)))
        throw new ReservationNotYetKnownError(accountId, jobId);
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
