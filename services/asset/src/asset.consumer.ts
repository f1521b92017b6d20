import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { isEvent, TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { EVENT_LOG, OwnerFence, type EventLog, type Subscription } from '@thumbforge/event-log';
import { LOGGER, ReadinessRegistry, type Logger } from '@thumbforge/platform';
import { CreateReferenceSetUseCase } from './create-reference-set/create-reference-set.usecase.js';
import { AssetProjection } from './projection/asset-projection.js';
import { RemoveLogoUseCase } from './remove-logo/remove-logo.usecase.js';
import { RemovePhotoUseCase } from './remove-photo/remove-photo.usecase.js';
import { RemoveReferenceSetUseCase } from './remove-reference-set/remove-reference-set.usecase.js';
import { ResolveJobAssetsUseCase } from './resolve-job-assets/resolve-job-assets.usecase.js';
import { SaveLogoUseCase } from './save-logo/save-logo.usecase.js';
import { SavePhotoUseCase } from './save-photo/save-photo.usecase.js';

export const ASSET_GROUP = 'asset';

/**
 * The asset service's inbox: the `*-requested` commands of the assets topic, one at a time from the
 * group's committed position. Saves and job asset questions share the topic and its per-account
 * order, so a job requested after a save always sees it. Commands are decided under the replica's
 * owner epoch for their partition (`OwnerFence`), so a replica that lost the partition cannot resolve
 * a job from assets its new owner has changed.
 */
@Injectable()
export class AssetConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscription: Subscription | null = null;
  private readonly fence: OwnerFence;

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly assets: AssetProjection,
    private readonly readiness: ReadinessRegistry,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly savePhoto: SavePhotoUseCase,
    private readonly removePhoto: RemovePhotoUseCase,
    private readonly saveLogo: SaveLogoUseCase,
    private readonly removeLogo: RemoveLogoUseCase,
    private readonly createReferenceSet: CreateReferenceSetUseCase,
    private readonly removeReferenceSet: RemoveReferenceSetUseCase,
    private readonly resolveJobAssets: ResolveJobAssetsUseCase,
  ) {
    this.fence = new OwnerFence({
      log,
      topic: TOPICS.assets,
      writer: ASSET_GROUP,
      reached: (marker) => this.assets.reached(marker),
      current: (partition) => this.assets.epoch(partition),
      logger,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.assets.start();
    this.readiness.track('asset.projection', this.assets.caughtUp);
    this.subscription = await this.log.subscribe({
      group: ASSET_GROUP,
      topics: [TOPICS.assets],
      from: 'committed',
      handle: (event) => this.handle(event),
      onAssignment: (partitions) => this.fence.assign(partitions),
    });
    this.readiness.track('asset.consumer', this.subscription.caughtUp);
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Commands first: an in-flight one may still be waiting for the projection.
    await this.subscription?.close();
    this.subscription = null;
    this.fence.close();
    await this.assets.close();
  }

  private async handle(event: StoredEvent): Promise<void> {
    if (!event.type.endsWith('-requested')) return;
    if (event.version !== 1) {
      this.logger.warn(
        { type: event.type, version: event.version, eventId: event.id },
        'unknown command version skipped',
      );
      return;
    }
    await this.assets.caughtUp;
    await this.fence.decide(event, async (fence) => {
      // Every fact written before this command, in its account's partition, is applied first.
      await this.assets.reached(event);
      await this.decide(event, fence);
    });
  }

  private async decide(event: StoredEvent, fence: number): Promise<void> {
    const commandId = event.id;
    if (isEvent(event, 'asset.photo-save-requested')) {
      await this.savePhoto.execute({ commandId, ...event.payload, fence });
    } else if (isEvent(event, 'asset.photo-remove-requested')) {
      await this.removePhoto.execute({ commandId, ...event.payload, fence });
    } else if (isEvent(event, 'asset.logo-save-requested')) {
      await this.saveLogo.execute({ commandId, ...event.payload, fence });
    } else if (isEvent(event, 'asset.logo-remove-requested')) {
      await this.removeLogo.execute({ commandId, ...event.payload, fence });
    } else if (isEvent(event, 'asset.reference-set-create-requested')) {
      await this.createReferenceSet.execute({ commandId, ...event.payload, fence });
    } else if (isEvent(event, 'asset.reference-set-remove-requested')) {
      await this.removeReferenceSet.execute({ commandId, ...event.payload, fence });
    } else if (isEvent(event, 'asset.job-assets-requested')) {
      await this.resolveJobAssets.execute({ commandId, ...event.payload, fence });
    }
  }
}
