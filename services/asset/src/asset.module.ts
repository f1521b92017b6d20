import { Module } from '@nestjs/common';
import { AssetConsumer } from './asset.consumer.js';
import { CreateReferenceSetUseCase } from './create-reference-set/create-reference-set.usecase.js';
import { AssetProjection } from './projection/asset-projection.js';
import { RemoveLogoUseCase } from './remove-logo/remove-logo.usecase.js';
import { RemovePhotoUseCase } from './remove-photo/remove-photo.usecase.js';
import { RemoveReferenceSetUseCase } from './remove-reference-set/remove-reference-set.usecase.js';
import { ResolveJobAssetsUseCase } from './resolve-job-assets/resolve-job-assets.usecase.js';
import { SaveLogoUseCase } from './save-logo/save-logo.usecase.js';
import { SavePhotoUseCase } from './save-photo/save-photo.usecase.js';

/**
 * Saved assets and job asset resolution. Expects the global EVENT_LOG, PROJECTION_STORE, CLOCK and
 * LOGGER tokens and the ReadinessRegistry from the composition root.
 */
@Module({
  providers: [
    AssetProjection,
    SavePhotoUseCase,
    RemovePhotoUseCase,
    SaveLogoUseCase,
    RemoveLogoUseCase,
    CreateReferenceSetUseCase,
    RemoveReferenceSetUseCase,
    ResolveJobAssetsUseCase,
    AssetConsumer,
  ],
})
export class AssetModule {}
