import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FileEventLog } from '@thumbforge/event-log';
import { mountOpenApi, requestPipeline } from '@thumbforge/gateway';
import { LocalObjectStore } from '@thumbforge/object-store';
import {
  createLogger,
  systemClock,
  type Clock,
  type Config,
  type Infrastructure,
} from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { EmbeddedAppModule } from './app.module.js';

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
  await log.open();
  for (const note of log.recovered) logger.warn(note, 'event log: dropped an unacknowledged torn tail');
  return {
    config,
    log,
    projections: new MemoryProjectionStore(),
    objects: new LocalObjectStore({ dir: join(config.dataDir, 'objects'), publicBaseUrl: config.cdnUrl }),
    clock: options.clock ?? systemClock,
    logger,
  };
}

/**
 * The whole service in one process. Projections rebuild from the log while Nest boots; the app is
 * returned initialised (consumers running) but not yet listening.
 */
export async function createEmbeddedApp(
  config: Config,
  options: EmbeddedOptions = {},
): Promise<NestExpressApplication> {
  const infra = await openEmbeddedInfrastructure(config, options);
  const app = await NestFactory.create<NestExpressApplication>(EmbeddedAppModule.register(infra), {
    bodyParser: false,
    logger: false,
    abortOnError: false,
  });
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  for (const middleware of requestPipeline(infra.logger)) app.use(middleware);
  mountOpenApi(app);
  await app.init();
  // The log closes after every consumer has finished its in-flight event.
  const close = app.close.bind(app);
  app.close = async () => {
    await close();
    await infra.log.close();
    await infra.projections.close();
  };
  return app;
}
