import { Inject, Injectable } from '@nestjs/common';
import { makeEvent, type Format, type StoredEvent } from '@thumbforge/contracts';
import { CLOCK, type Clock } from '@thumbforge/platform';
import { factOf } from '../facts.js';
import { AssetProjection } from '../projection/asset-projection.js';

export interface CreateReferenceSetCommand {
  /** Id of the `asset.reference-set-create-requested` event. */
  commandId: string;
  accountId: string;
  setId: string;
  format: Format;
  /** Private-bucket keys of the 1 to 6 images the gateway validated and stored. */
  imageKeys: string[];
  /** The owner epoch to stamp the facts with (see `OwnerFence`); none on an unfenced log. */
  fence?: number;
}

/** Records a new reference set. Set ids are never reused, so a set id seen before (even removed) is a repeat. */
@Injectable()
export class CreateReferenceSetUseCase {
  constructor(
    private readonly assets: AssetProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({
    commandId,
    fence,
    accountId,
    setId,
    format,
    imageKeys,
  }: CreateReferenceSetCommand): Promise<StoredEvent[]> {
    if ((await this.assets.handled(commandId)) || (await this.assets.referenceSetRecord(setId))) return [];
    const fact = makeEvent(
      'asset.reference-set-created',
      accountId,
      { accountId, setId, format, imageKeys },
      factOf(commandId, 'reference-set-created', accountId, this.clock.now()),
    );
    return this.assets.commit(accountId, [fact], fence);
  }
}
