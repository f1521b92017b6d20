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
  ReadinessRegistry,
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
  saveSnapshot,
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

/** How often a running process asks whether enough documents changed for a snapshot. */
const SNAPSHOT_CHECK_MS = 5_000;
/** After a snapshot failed while running (a full disk), how long before the next try. */
const SNAPSHOT_RETRY_MS = 60_000;

/**
 * The read models in memory, saved with the log positions they cover when the process stops, so the
 * next start loads them and replays only the events after those positions (DESIGN §12, start-up).
 * While it runs, a snapshot is also saved once `SNAPSHOT_EVERY_DOCUMENTS` documents are held in memory
 * (written, or read from the last snapshot, since it): the documents unchanged since are then read from
 * the new one instead of held in memory, and a start after a crash replays only what came after it.
 */
class SnapshottedProjections extends MemoryProjectionStore {
  private saved = false;
  private timer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private notBefore = 0;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {
    super();
  }

  /**
   * Saves a snapshot whenever `documents` documents are resident while `ready` (start-up over: a
   * replay from the start is not cut up, and a draining process saves at its stop).
   */
  saveEvery(documents: number, ready: () => boolean): void {
    if (documents <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (this.saving || Date.now() < this.notBefore || this.residentDocuments() < documents) return;
      if (!ready()) return;
      this.saving = this.saveWhileRunning().finally(() => (this.saving = undefined));
    }, SNAPSHOT_CHECK_MS);
    this.timer.unref();
  }

  /**
   * A snapshot of this instant, not a quiet cut: each projection's documents are at least as far as
   * its positions, and an event applied again after a restart changes nothing.
   */
  async saveWhileRunning(): Promise<void> {
    const started = performance.now();
    const resident = this.residentDocuments();
    try {
      const cut = this.snapshot();
      this.adopt(cut, await saveSnapshot(this.file, cut));
      this.logger.info(
        {
          file: this.file,
          ms: Math.round(performance.now() - started),
          residentBefore: resident,
          residentAfter: this.residentDocuments(),
        },
        'projections saved while running',
      );
    } catch (error) {
      this.notBefore = Date.now() + SNAPSHOT_RETRY_MS;
      this.logger.warn({ err: error, file: this.file }, 'projection snapshot not saved while running');
    }
  }

  /** Runs after the log closed: every consumer has finished, so the snapshot is a quiet cut. */
  override async close(): Promise<void> {
    clearInterval(this.timer);
    await this.saving;
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
  configure: (app, infra) => {
    configureGatewayHttp(app, infra);
    if (infra.projections instanceof SnapshottedProjections) {
      const readiness = app.get(ReadinessRegistry);
      infra.projections.saveEvery(infra.config.snapshotEveryDocuments, () => readiness.snapshot().ready);
    }
  },
};

/** The whole service in one process, initialised (projections rebuilt from the log) but not yet listening. */
export async function createEmbeddedApp(
  config: Config,
  options: EmbeddedOptions = {},
): Promise<NestExpressApplication> {
  return createServiceApp(await openEmbeddedInfrastructure(config, options), EMBEDDED_APP);
}
