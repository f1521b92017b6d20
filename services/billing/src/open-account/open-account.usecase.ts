import { Inject, Injectable } from '@nestjs/common';
import type { Plan, StoredEvent } from '@thumbforge/contracts';
import { decideOpenAccount } from '@thumbforge/domain';
import { CLOCK, type Clock } from '@thumbforge/platform';
import { LedgerProjection } from '../ledger/ledger-projection.js';

export interface OpenAccountCommand {
  /** Id of the `billing.account-open-requested` event. */
  commandId: string;
  accountId: string;
  plan: Plan;
  apiAccess: boolean;
  /** The owner epoch to stamp the facts with (see `OwnerFence`); none on an unfenced log. */
  fence?: number;
}

/** Opens an account with its first monthly period; re-sent for an existing account, it does nothing. */
@Injectable()
export class OpenAccountUseCase {
  constructor(
    private readonly ledgers: LedgerProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ commandId, accountId, plan, apiAccess, fence }: OpenAccountCommand): Promise<StoredEvent[]> {
    return this.ledgers.exclusive(accountId, async () => {
      const state = await this.ledgers.ledger(accountId);
      const facts = decideOpenAccount(state, { accountId, plan, apiAccess }, this.clock.now(), {
        causationId: commandId,
      });
      return this.ledgers.commit(accountId, facts, fence);
    });
  }
}
