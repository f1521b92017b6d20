import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AssetModule } from '@thumbforge/asset';
import { BillingModule } from '@thumbforge/billing';
import { FileEventLog } from '@thumbforge/event-log';
import { configureGatewayHttp, GatewayModule } from '@thumbforge/gateway';
import { LocalObjectStore } from '@thumbforge/object-store';
import {
  createLogger,
  createServiceApp,
  dataDirError,
  systemClock,
  type Clock,
  type Config,
  type Infrastructure,
  type ServiceAppOptions,
} from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { RenderingModule } from '@thumbforge/rendering';
import { WebhookDeliveryModule } from '@thumbforge/webhook-delivery';

export interface EmbeddedOptions {
  clock?: Clock;
}

/** Opens the embedded adapters under DATA_DIR: the durable log, in-memory projections, local objects. */
export async function openEmbeddedInfrastructure(
  config: Config,
  options: EmbeddedOptions = {},
): Promise<Infrastructure> {
  const logger = createLogger(config);
  const log = new FileEventLog({
    dir: join(config.dataDir, 'log'),
    fsync: config.logFsync,
    onError: (error, context) => logger.warn({ err: error, context }, 'event log consumer error'),
  });
  const objects = new LocalObjectStore({
    dir: join(config.dataDir, 'objects'),
    publicBaseUrl: config.cdnUrl,
  });
  try {
    await log.open();
    await objects.ping();
  } catch (error) {
    await log.close().catch(() => undefined);
    // Only file-system failures are the operator's to fix; anything else is a fault to report whole.
    if ((error as NodeJS.ErrnoException).code) throw dataDirError(config.dataDir, error);
    throw error;
  }
  for (const note of log.recovered) logger.warn(note, 'event log: dropped an unacknowledged torn tail');
  return {
    config,
    log,
    projections: new MemoryProjectionStore(),
    objects,
    clock: options.clock ?? systemClock,
    logger,
  };
}

/** The five services in one Nest application; they still meet only on the event log. */
export const EMBEDDED_APP: ServiceAppOptions = {
  modules: [
    GatewayModule.register({ serveCdn: true }),
    BillingModule,
    AssetModule,
    RenderingModule,
    WebhookDeliveryModule,
  ],
  configure: configureGatewayHttp,
};

/** The whole service in one process, initialised (projections rebuilt from the log) but not yet listening. */
export async function createEmbeddedApp(
  config: Config,
  options: EmbeddedOptions = {},
): Promise<NestExpressApplication> {
  return createServiceApp(await openEmbeddedInfrastructure(config, options), EMBEDDED_APP);
}
