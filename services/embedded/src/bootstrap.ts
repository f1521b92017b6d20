import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AssetModule } from '@thumbforge/asset';
import { BillingModule } from '@thumbforge/billing';
import { FileEventLog, type EventLog } from '@thumbforge/event-log';
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
  type Logger,
  type ServiceAppOptions,
} from '@thumbforge/platform';
import {
  MemoryProjectionStore,
  readSnapshot,
  writeSnapshot,
  type ProjectionSnapshot,
} from '@thumbforge/projection-store';
import { RenderingModule } from '@thumbforge/rendering';
import { WebhookDeliveryModule } from '@thumbforge/webhook-delivery';

export interface EmbeddedOptions {
  clock?: Clock;
}

/** Where embedded mode keeps its projection snapshot under DATA_DIR. */
export function snapshotFile(dataDir: string): string {
  return join(dataDir, 'snapshots', 'projections.bin');
}

/**
 * The read models in memory, saved with the log positions they cover when the process stops, so the
 * next start loads them and replays only the events after those positions (DESIGN §12, start-up).
 */
class SnapshottedProjections extends MemoryProjectionStore {
  private saved = false;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {
    super();
  }

  /** Runs after the log closed: every consumer has finished, so the snapshot is a quiet cut. */
  override async close(): Promise<void> {
    if (!this.saved) {
      this.saved = true;
      const started = performance.now();
      try {
        await writeSnapshot(this.file, this.snapshot());
        this.logger.info(
          { file: this.file, ms: Math.round(performance.now() - started) },
          'projections saved',
        );
      } catch (error) {
        this.logger.error(
          { err: error, file: this.file },
          'projection snapshot not saved: next start replays',
        );
      }
    }
    await super.close();
  }
}

/**
 * A snapshot is used only if the log still holds every event it covers: a log restored from an older
 * backup, or one that lost an unsynced tail, makes the projections replay it from the start.
 */
async function coversLog(snapshot: ProjectionSnapshot, log: EventLog): Promise<boolean> {
  for (const positions of snapshot.positions.values()) {
    for (const [key, offset] of Object.entries(positions)) {
      if (offset > (await log.size(key.slice(0, key.lastIndexOf(':'))))) return false;
    }
  }
  return true;
}

async function openProjections(
  dataDir: string,
  log: EventLog,
  logger: Logger,
): Promise<MemoryProjectionStore> {
  const file = snapshotFile(dataDir);
  const store = new SnapshottedProjections(file, logger);
  try {
    const snapshot = await readSnapshot(file);
    if (!snapshot) return store;
    if (await coversLog(snapshot, log)) {
      store.restore(snapshot);
      logger.info({ file }, 'projections loaded from the snapshot; replaying the log after it');
    } else {
      snapshot.release?.();
      logger.warn({ file }, 'projection snapshot is ahead of the event log: replaying the log instead');
    }
  } catch (error) {
    logger.warn({ err: error, file }, 'projection snapshot unreadable: replaying the log instead');
  }
  return store;
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
    projections: await openProjections(config.dataDir, log, logger),
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
