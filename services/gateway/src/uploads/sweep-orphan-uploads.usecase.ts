import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';
import { CLOCK, LOGGER, type Clock, type Logger } from '@thumbforge/platform';
import { GatewayReadModel } from '../read-model/gateway-read-model.js';
import { orphanedUploads, UPLOADS_PREFIX, uploadJobId } from './orphaned-uploads.js';

/** Far beyond the reservation step's deadline: an upload this old has had its answer. */
export const ORPHAN_GRACE_MS = 10 * 60_000;
const SWEEP_INTERVAL_MS = 5 * 60_000;

/**
 * Removes inline uploads no job was accepted for: the gateway writes them just before asking billing,
 * deletes them itself on a refusal, and this catches what a crash or a lost reply left behind.
 */
@Injectable()
export class SweepOrphanUploadsUseCase implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    @Inject(OBJECT_STORE) private readonly objects: ObjectStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly readModel: GatewayReadModel,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running ??= this.execute()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'upload sweep failed'))
        .finally(() => (this.running = undefined));
    }, SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass; returns the keys it removed. */
  async execute(): Promise<string[]> {
    const listed = await this.objects.list('private', UPLOADS_PREFIX);
    const accepted = new Set<string>();
    for (const jobId of new Set(listed.map(({ key }) => uploadJobId(key)))) {
      if (jobId && (await this.readModel.job(jobId))) accepted.add(jobId);
    }
    const orphans = orphanedUploads(listed, accepted, this.clock.now(), ORPHAN_GRACE_MS);
    for (const key of orphans) await this.objects.delete('private', key);
    if (orphans.length > 0) this.logger.info({ removed: orphans.length }, 'removed orphaned uploads');
    return orphans;
  }
}
