import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CONFIG, type Config } from '@thumbforge/platform';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';
import { AccountsUseCase } from './admin/accounts.usecase.js';
import { AdminController } from './admin/admin.controller.js';
import { AdminGuard } from './admin/admin.guard.js';
import { AssetsUseCase } from './admin/assets.usecase.js';
import { ApiKeyGuard } from './auth/api-key.guard.js';
import { CdnController } from './cdn/cdn.controller.js';
import { GenerateController } from './generate/generate.controller.js';
import { GenerateUseCase } from './generate/generate.usecase.js';
import { ErrorFilter } from './http/error.filter.js';
import { IdempotentGenerateUseCase } from './idempotency/idempotent-generate.usecase.js';
import { GetJobUseCase } from './jobs/get-job.usecase.js';
import { JobsController } from './jobs/jobs.controller.js';
import { Replies } from './messaging/replies.js';
import { RATE_LIMITER, TokenBucketRateLimiter } from './rate-limit/rate-limiter.js';
import { SharedRateLimiter } from './rate-limit/shared-rate-limiter.js';
import { RateLimitGuard } from './rate-limit/rate-limit.guard.js';
import { GatewayReadModel } from './read-model/gateway-read-model.js';
import { RebuildUseCase } from './rebuild/rebuild.usecase.js';
import { SignedImageController } from './signed-image/signed-image.controller.js';
import { SignedImageUseCase } from './signed-image/signed-image.usecase.js';
import { SweepOrphanUploadsUseCase } from './uploads/sweep-orphan-uploads.usecase.js';

export interface GatewayModuleOptions {
  /** Serve the public bucket under /cdn (embedded mode). */
  serveCdn: boolean;
}

@Module({})
export class GatewayModule {
  static register(options: GatewayModuleOptions): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [
        GenerateController,
        JobsController,
        SignedImageController,
        AdminController,
        ...(options.serveCdn ? [CdnController] : []),
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorFilter },
        {
          provide: RATE_LIMITER,
          // Replicas share one limit in a cluster; one process keeps it in memory.
          useFactory: (config: Config, store: ProjectionStore) =>
            config.mode === 'cluster' ? new SharedRateLimiter(store) : new TokenBucketRateLimiter(),
          inject: [CONFIG, PROJECTION_STORE],
        },
        GatewayReadModel,
        Replies,
        ApiKeyGuard,
        RateLimitGuard,
        AdminGuard,
        GenerateUseCase,
        IdempotentGenerateUseCase,
        SignedImageUseCase,
        GetJobUseCase,
        AccountsUseCase,
        AssetsUseCase,
        RebuildUseCase,
        SweepOrphanUploadsUseCase,
      ],
    };
  }
}
