import { Inject, Injectable } from '@nestjs/common';
import type { Plan, StoredEvent } from '@thumbforge/contracts';
import { decideChangeAccount } from '@thumbforge/domain';
import { CLOCK, LOGGER, type Clock, type Logger } from '@thumbforge/platform';
import { LedgerProjection } from '../ledger/ledger-projection.js';

export interface ChangeAccountCommand {
  /** Id of the `billing.account-change-requested` event. */
  commandId: string;
  accountId: string;
  plan?: Plan;
  apiAccess?: boolean;
  /** The owner epoch to stamp the facts with (see `OwnerFence`); none on an unfenced log. */
  fence?: number;
}

/**
 * Changes an account's plan and/or API access. A new plan's allowance applies at once to the current
 * period (see `decideChangeAccount`).
 */
@Injectable()
export class ChangeAccountUseCase {
  constructor(
    private readonly ledgers: LedgerProjection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  execute({ commandId, fence, ...change }: ChangeAccountCommand): Promise<StoredEvent[]> {
    return this.ledgers.exclusive(change.accountId, async () => {
      const state = await this.ledgers.ledger(change.accountId);
      if (!state) {
        this.logger.warn(
          { accountId: change.accountId, commandId },
          'account change for an unknown account ignored',
        );
        return [];
      }
      const facts = decideChangeAccount(state, change, this.clock.now(), { causationId: commandId });
      return this.ledgers.commit(change.accountId, facts, fence);
    });
  }
}
