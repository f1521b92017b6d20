import { Inject, Injectable } from '@nestjs/common';
import { makeEvent, type StoredEvent } from '@thumbforge/contracts';
import { CLOCK, type Clock } from '@thumbforge/platform';
import { factOf } from '../facts.js';
import { AssetProjection } from '../projection/asset-projection.js';

export interface RemoveReferenceSetCommand {
  /** Id of the `asset.reference-set-remove-requested` event. */
  commandId: string;
  accountId: string;
  setId: string;
  /** The owner epoch to stamp the facts with (see `OwnerFence`); none on an unfenced log. */
  fence?: number;
}

/** Removes one of the account's reference sets; another account's set or an unknown one is left alone. */
@Injectable()
export class RemoveReferenceSetUseCase {
  constructor(
    private readonly assets: AssetProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ commandId, fence, accountId, setId }: RemoveReferenceSetCommand): Promise<StoredEvent[]> {
    if (await this.assets.handled(commandId)) return [];
    if (!(await this.assets.referenceSet(accountId, setId))) return [];
    const fact = makeEvent(
      'asset.reference-set-removed',
      accountId,
      { accountId, setId },
      factOf(commandId, 'reference-set-removed', accountId, this.clock.now()),
    );
    return this.assets.commit(accountId, [fact], fence);
  }
}
