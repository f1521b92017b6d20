import { Inject, Injectable } from '@nestjs/common';
import {
  TOPICS,
  type EventEnvelope,
  type Format,
  type LogoPlacement,
  type StoredEvent,
  type ThumbforgeEvent,
} from '@thumbforge/contracts';
import { admitsFact } from '@thumbforge/domain';
import {
  EVENT_LOG,
  foldInto,
  OwnerEpochs,
  Projection,
  unfolded,
  type EventLog,
  type FoldedDocument,
  type OwnerEpochDocument,
} from '@thumbforge/event-log';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';

export const PHOTOS = 'asset_photos';
export const LOGOS = 'asset_logos';
export const REFERENCE_SETS = 'asset_reference_sets';
/** Commands whose facts are applied: a command delivered again is recognised and decides nothing. */
export const HANDLED_COMMANDS = 'asset_handled_commands';
/** Per partition of the assets topic: the current owner epoch (offset of its latest marker). */
export const EPOCHS = 'asset_epochs';

/** id = accountId. */
export interface SavedPhoto extends FoldedDocument {
  id: string;
  key: string;
  /** A removal is kept, folded, so that an older save applied again cannot bring the photo back. */
  removed?: boolean;
}

/** id = accountId. */
export interface SavedLogo extends LogoPlacement, FoldedDocument {
  id: string;
  removed?: boolean;
}

/** id = setId. A removed set stays as a tombstone so that a re-delivered create cannot revive it. */
export interface ReferenceSet {
  id: string;
  accountId: string;
  format: Format;
  imageKeys: string[];
  removed: boolean;
}

export interface HandledCommand {
  id: string;
}

const ASSET_FACTS = new Set<string>([
  'asset.photo-saved',
  'asset.photo-removed',
  'asset.logo-saved',
  'asset.logo-removed',
  'asset.reference-set-created',
  'asset.reference-set-removed',
  'asset.job-assets-resolved',
  'asset.job-assets-rejected',
]);

/**
 * The asset service's own state: saved photos, logos and reference sets, folded from the asset facts
 * on the log. Each command's facts are awaited here before the next command is decided.
 */
@Injectable()
export class AssetProjection extends Projection {
  constructor(@Inject(EVENT_LOG) log: EventLog, @Inject(PROJECTION_STORE) store: ProjectionStore) {
    super(log, store, 'asset', [TOPICS.assets]);
  }

  async photo(accountId: string): Promise<Omit<SavedPhoto, 'folded'> | undefined> {
    const photo = await this.photos.get(accountId);
    return photo?.removed ? undefined : unfolded(photo);
  }

  async logo(accountId: string): Promise<Omit<SavedLogo, 'folded'> | undefined> {
    const logo = await this.logos.get(accountId);
    return logo?.removed ? undefined : unfolded(logo);
  }

  /** The account's set, or undefined when it does not exist, belongs to another account or was removed. */
  async referenceSet(accountId: string, setId: string): Promise<ReferenceSet | undefined> {
    const set = await this.referenceSets.get(setId);
    return set && set.accountId === accountId && !set.removed ? set : undefined;
  }

  /** Any record of the set, removed or not: set ids are never reused. */
  referenceSetRecord(setId: string): Promise<ReferenceSet | undefined> {
    return this.referenceSets.get(setId);
  }

  async handled(commandId: string): Promise<boolean> {
    return (await this.handledCommands.get(commandId)) !== undefined;
  }

  /** The owner epoch of a partition of the assets topic, as folded so far. */
  epoch(partition: number): Promise<number | undefined> {
    return this.epochs.current({ topic: TOPICS.assets, partition });
  }

  /**
   * Appends facts about one account, stamped with the writer's owner epoch when it has one, and
   * resolves once the projection has applied them (or dropped them as fenced out).
   */
  async commit(accountId: string, facts: EventEnvelope[], fence?: number): Promise<StoredEvent[]> {
    if (facts.length === 0) return [];
    const stamped = fence === undefined ? facts : facts.map((fact) => ({ ...fact, fence }));
    const stored = await this.log.append(TOPICS.assets, stamped, { key: accountId });
    await this.settle(stored);
    return stored;
  }

  private get photos() {
    return this.store.collection<SavedPhoto>(PHOTOS);
  }
  private get logos() {
    return this.store.collection<SavedLogo>(LOGOS);
  }
  private get referenceSets() {
    return this.store.collection<ReferenceSet>(REFERENCE_SETS);
  }
  private get epochs() {
    return new OwnerEpochs(this.store.collection<OwnerEpochDocument>(EPOCHS));
  }
  private get handledCommands() {
    return this.store.collection<HandledCommand>(HANDLED_COMMANDS);
  }

  protected async apply(event: StoredEvent): Promise<void> {
    if (await this.epochs.observe(event)) return;
    if (!ASSET_FACTS.has(event.type)) return;
    // In log order: a fact stamped with an epoch before the partition's latest one is a stale writer's.
    if (event.fence !== undefined && !admitsFact(await this.epochs.current(event), event)) return;
    const fact = event as StoredEvent & ThumbforgeEvent;
    switch (fact.type) {
      case 'asset.photo-saved': {
        const { accountId, key } = fact.payload;
        await foldInto(this.photos, accountId, event, () => ({ id: accountId, key }));
        break;
      }
      case 'asset.photo-removed':
        await foldInto(
          this.photos,
          fact.payload.accountId,
          event,
          (photo) => photo && { ...photo, removed: true },
        );
        break;
      case 'asset.logo-saved': {
        const { accountId, key, position, size, dropShadow } = fact.payload;
        await foldInto(this.logos, accountId, event, () => ({
          id: accountId,
          key,
          position,
          size,
          dropShadow,
        }));
        break;
      }
      case 'asset.logo-removed':
        await foldInto(
          this.logos,
          fact.payload.accountId,
          event,
          (logo) => logo && { ...logo, removed: true },
        );
        break;
      case 'asset.reference-set-created': {
        const { accountId, setId, format, imageKeys } = fact.payload;
        if (!(await this.referenceSets.get(setId))) {
          await this.referenceSets.put({ id: setId, accountId, format, imageKeys, removed: false });
        }
        break;
      }
      case 'asset.reference-set-removed': {
        const set = await this.referenceSets.get(fact.payload.setId);
        if (set && set.accountId === fact.payload.accountId) {
          await this.referenceSets.put({ ...set, imageKeys: [], removed: true });
        }
        break;
      }
      default:
        break;
    }
    if (fact.causationId) await this.handledCommands.put({ id: fact.causationId });
  }
}
