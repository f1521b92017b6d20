import { Inject, Injectable } from '@nestjs/common';
import { makeEvent, type StoredEvent } from '@thumbforge/contracts';
import { CLOCK, type Clock } from '@thumbforge/platform';
import { factOf } from '../facts.js';
import { AssetProjection } from '../projection/asset-projection.js';

export interface RemoveLogoCommand {
  /** Id of the `asset.logo-remove-requested` event. */
  commandId: string;
  accountId: string;
  /** The owner epoch to stamp the facts with (see `OwnerFence`); none on an unfenced log. */
  fence?: number;
}

/** Forgets the account's saved logo; with none saved there is nothing to record. */
@Injectable()
export class RemoveLogoUseCase {
  constructor(
    private readonly assets: AssetProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ commandId, fence, accountId }: RemoveLogoCommand): Promise<StoredEvent[]> {
    if ((await this.assets.handled(commandId)) || !(await this.assets.logo(accountId))) return [];
    const fact = makeEvent(
      'asset.logo-removed',
      accountId,
      { accountId },
      factOf(commandId, 'logo-removed', accountId, this.clock.now()),
    );
    return this.assets.commit(accountId, [fact], fence);
  }
}
