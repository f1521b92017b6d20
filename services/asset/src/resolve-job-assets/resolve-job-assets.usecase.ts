import { Inject, Injectable } from '@nestjs/common';
import { makeEvent, type JobAssetsRequestedV1, type StoredEvent } from '@thumbforge/contracts';
import { resolveJobAssets } from '@thumbforge/domain';
import { CLOCK, type Clock } from '@thumbforge/platform';
import { factOf } from '../facts.js';
import { AssetProjection } from '../projection/asset-projection.js';

export interface ResolveJobAssetsCommand extends JobAssetsRequestedV1 {
  /** Id of the `asset.job-assets-requested` event. */
  commandId: string;
  /** The owner epoch to stamp the facts with (see `OwnerFence`); none on an unfenced log. */
  fence?: number;
}

/** Answers the gateway's asset question for a job: the resolved assets, or why the job cannot have them. */
@Injectable()
export class ResolveJobAssetsUseCase {
  constructor(
    private readonly assets: AssetProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ commandId, fence, ...request }: ResolveJobAssetsCommand): Promise<StoredEvent[]> {
    if (await this.assets.handled(commandId)) return [];
    const { accountId, jobId } = request;
    const [photo, logo, set] = await Promise.all([
      this.assets.photo(accountId),
      this.assets.logo(accountId),
      request.customAssetsId ? this.assets.referenceSet(accountId, request.customAssetsId) : undefined,
    ]);
    const resolution = resolveJobAssets(request, {
      photoKey: photo?.key ?? null,
      logo: logo
        ? { key: logo.key, position: logo.position, size: logo.size, dropShadow: logo.dropShadow }
        : null,
      referenceSet: set ? { setId: set.id, format: set.format, imageKeys: set.imageKeys } : null,
    });
    const now = this.clock.now();
    const fact = resolution.ok
      ? makeEvent(
          'asset.job-assets-resolved',
          accountId,
          { jobId, accountId, ...resolution.assets },
          factOf(commandId, 'resolved', jobId, now),
        )
      : makeEvent(
          'asset.job-assets-rejected',
          accountId,
          { jobId, accountId, reason: resolution.reason },
          factOf(commandId, 'rejected', jobId, now),
        );
    return this.assets.commit(accountId, [fact], fence);
  }
}
