import { Inject, Injectable } from '@nestjs/common';
import { makeEvent, type StoredEvent } from '@thumbforge/contracts';
import { CLOCK, type Clock } from '@thumbforge/platform';
import { factOf } from '../facts.js';
import { AssetProjection } from '../projection/asset-projection.js';

export interface SavePhotoCommand {
  /** Id of the `asset.photo-save-requested` event. */
  commandId: string;
  accountId: string;
  /** Private-bucket key of the photo the gateway validated and stored. */
  key: string;
  /** The owner epoch to stamp the facts with (see `OwnerFence`); none on an unfenced log. */
  fence?: number;
}

/** Records the account's saved photo, replacing any earlier one. */
@Injectable()
export class SavePhotoUseCase {
  constructor(
    private readonly assets: AssetProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ commandId, fence, accountId, key }: SavePhotoCommand): Promise<StoredEvent[]> {
    if (await this.assets.handled(commandId)) return [];
    const fact = makeEvent(
      'asset.photo-saved',
      accountId,
      { accountId, key },
      factOf(commandId, 'photo-saved', accountId, this.clock.now()),
    );
    return this.assets.commit(accountId, [fact], fence);
  }
}
