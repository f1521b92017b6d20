import { Inject, Injectable } from '@nestjs/common';
import { makeEvent, type LogoPlacement, type StoredEvent } from '@thumbforge/contracts';
import { CLOCK, type Clock } from '@thumbforge/platform';
import { factOf } from '../facts.js';
import { AssetProjection } from '../projection/asset-projection.js';

export interface SaveLogoCommand extends LogoPlacement {
  /** Id of the `asset.logo-save-requested` event. */
  commandId: string;
  accountId: string;
  /** The owner epoch to stamp the facts with (see `OwnerFence`); none on an unfenced log. */
  fence?: number;
}

/** Records the account's saved logo and its placement, replacing any earlier one. */
@Injectable()
export class SaveLogoUseCase {
  constructor(
    private readonly assets: AssetProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({
    commandId,
    fence,
    accountId,
    key,
    position,
    size,
    dropShadow,
  }: SaveLogoCommand): Promise<StoredEvent[]> {
    if (await this.assets.handled(commandId)) return [];
    const fact = makeEvent(
      'asset.logo-saved',
      accountId,
      { accountId, key, position, size, dropShadow },
      factOf(commandId, 'logo-saved', accountId, this.clock.now()),
    );
    return this.assets.commit(accountId, [fact], fence);
  }
}
