import { Inject, Injectable } from '@nestjs/common';
import { LIMITS, makeEvent, newId, TOPICS, type EventType, type EventPayloads } from '@thumbforge/contracts';
import {
  type CreateReferenceSetDto,
  type ReferenceSetDto,
  type SaveLogoDto,
  type SavePhotoDto,
} from '@thumbforge/contracts/api';
import { EVENT_LOG, type EventLog } from '@thumbforge/event-log';
import { parseImageDataUrl } from '@thumbforge/imaging';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';
import { ApiException } from '../http/api-exception.js';
import { AccountsUseCase } from './accounts.usecase.js';

/**
 * Saved assets, as the dashboard would manage them. Images are validated and stored here; the asset
 * service records them. Its commands share one ordered topic with job asset resolution, so a job
 * requested after a save always sees it.
 */
@Injectable()
export class AssetsUseCase {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(OBJECT_STORE) private readonly objects: ObjectStore,
    private readonly accounts: AccountsUseCase,
  ) {}

  async savePhoto(accountId: string, dto: SavePhotoDto): Promise<void> {
    await this.accounts.require(accountId);
    const key = await this.storeImage(accountId, 'photo', dto.image, 'image', LIMITS.photoMaxBytes);
    await this.command('asset.photo-save-requested', accountId, { accountId, key });
  }

  async removePhoto(accountId: string): Promise<void> {
    await this.accounts.require(accountId);
    await this.command('asset.photo-remove-requested', accountId, { accountId });
  }

  async saveLogo(accountId: string, dto: SaveLogoDto): Promise<void> {
    await this.accounts.require(accountId);
    const key = await this.storeImage(accountId, 'logo', dto.image, 'image', LIMITS.logoMaxBytes);
    await this.command('asset.logo-save-requested', accountId, {
      accountId,
      key,
      position: dto.position ?? 'bottom-right',
      size: dto.size ?? 0.15,
      dropShadow: dto.dropShadow ?? false,
    });
  }

  async removeLogo(accountId: string): Promise<void> {
    await this.accounts.require(accountId);
    await this.command('asset.logo-remove-requested', accountId, { accountId });
  }

  async createReferenceSet(accountId: string, dto: CreateReferenceSetDto): Promise<ReferenceSetDto> {
    await this.accounts.require(accountId);
    const setId = newId('ref');
    const imageKeys: string[] = [];
    for (const [index, image] of dto.images.entries()) {
      imageKeys.push(
        await this.storeImage(
          accountId,
          `references/${setId}`,
          image,
          `images[${index}]`,
          LIMITS.photoMaxBytes,
        ),
      );
    }
    await this.command('asset.reference-set-create-requested', accountId, {
      accountId,
      setId,
      format: dto.format,
      imageKeys,
    });
    return { id: setId, format: dto.format, imageCount: imageKeys.length };
  }

  async removeReferenceSet(accountId: string, setId: string): Promise<void> {
    await this.accounts.require(accountId);
    await this.command('asset.reference-set-remove-requested', accountId, { accountId, setId });
  }

  private async storeImage(
    accountId: string,
    folder: string,
    dataUrl: string,
    field: string,
    maxBytes: number,
  ): Promise<string> {
    const parsed = await parseImageDataUrl(dataUrl, { field, maxBytes });
    if (!parsed.ok) throw new ApiException(400, parsed.code, parsed.message);
    const key = `assets/${accountId}/${folder}/${newId('upl')}`;
    await this.objects.put('private', key, parsed.bytes, parsed.mime);
    return key;
  }

  private async command<K extends EventType>(
    type: K,
    accountId: string,
    payload: EventPayloads[K],
  ): Promise<void> {
    await this.log.append(TOPICS.assets, [makeEvent(type, accountId, payload, { correlationId: accountId })]);
  }
}
