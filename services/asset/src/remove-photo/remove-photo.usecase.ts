import { Inject, Injectable } from '@nestjs/common';
import { makeEvent, type StoredEvent } from '@thumbforge/contracts';
import { CLOCK, type Clock } from '@thumbforge/platform';
import { factOf } from '../facts.js';
import { AssetProjection } from '../projection/asset-projection.js';

export interface RemovePhotoCommand {
  /** Id of the `asset.photo-remove-requested` event. */
  commandId: string;
  accountId: string;
  /** The owner epoch to stamp the facts with (see `OwnerFence`); none on an unfenced log. */
  fence?: number;
}

/** Forgets the account's saved photo; with none saved there is nothing to record. */
@Injectable()
export class RemovePhotoUseCase {
  constructor(
    private readonly assets: AssetProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ commandId, fence, accountId }: RemovePhotoCommand): Promise<StoredEvent[]> {
    if ((await this.assets.handled(commandId)) || !(await this.assets.photo(accountId))) return [];
    const fact = makeEvent(
      'asset.photo-removed',
      accountId,
      { accountId },
      factOf(commandId, 'photo-removed', accountId, this.clock.now()),
    );
    return this.assets.commit(accountId, [fact], fence);
  }
}
