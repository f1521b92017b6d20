import { Inject, Injectable } from '@nestjs/common';
import type { JobSpec, StoredEvent } from '@thumbforge/contracts';
import { decideReservation } from '@thumbforge/domain';
import { CLOCK, LOGGER, type Clock, type Logger } from '@thumbforge/platform';
import { LedgerProjection } from '../ledger/ledger-projection.js';

export interface ReserveCreditsCommand {
  /** Id of the `billing.reservation-requested` event. */
  commandId: string;
  accountId: string;
  job: JobSpec;
  /** The owner epoch to stamp the facts with (see `OwnerFence`); none on an unfenced log. */
  fence?: number;
}

/**
 * Reserves a job's cost or rejects it with 429; the first reservation of a calendar month starts the
 * new period first. Reservations of one account are decided strictly one after another, each on a
 * ledger that already holds the previous one, so concurrent requests can never overdraw.
 */
@Injectable()
export class ReserveCreditsUseCase {
  constructor(
    private readonly ledgers: LedgerProjection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  execute({ commandId, accountId, job, fence }: ReserveCreditsCommand): Promise<StoredEvent[]> {
    return this.ledgers.exclusive(accountId, async () => {
      const state = await this.ledgers.ledger(accountId);
      if (!state) {
        // The gateway only asks for known accounts; nothing sensible to answer otherwise.
        this.logger.warn(
          { accountId, jobId: job.jobId, commandId },
          'reservation for an unknown account ignored',
        );
        return [];
      }
      const decided = await this.ledgers.jobBilling(job.jobId);
      const facts = decideReservation(state, decided, { job }, this.clock.now(), { causationId: commandId });
      return this.ledgers.commit(accountId, facts, fence);
    });
  }
}
