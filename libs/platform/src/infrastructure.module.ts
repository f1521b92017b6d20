import {
  Global,
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { EVENT_LOG, type EventLog } from '@thumbforge/event-log';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';
import { CLOCK, type Clock } from './clock.js';
import { CONFIG, type Config } from './config.js';
import { LOGGER, type Logger } from './logger.js';
import { ReadinessRegistry } from './readiness.js';

export interface Infrastructure {
  config: Config;
  log: EventLog;
  projections: ProjectionStore;
  objects: ObjectStore;
  clock: Clock;
  logger: Logger;
}

/**
 * Closes the log and the projection store when the application closes: Nest runs every module's
 * `beforeApplicationShutdown` (where consumers finish their in-flight event) before this hook.
 */
@Injectable()
class PortsShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(PROJECTION_STORE) private readonly projections: ProjectionStore,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.log.close();
    await this.projections.close();
  }
}

/**
 * Hands the ports to every service module. The composition root picks the adapters (embedded or
 * cluster); services only ever see the tokens.
 */
@Global()
@Module({})
export class InfrastructureModule {
  static forRoot(infra: Infrastructure): DynamicModule {
    const providers = [
      { provide: CONFIG, useValue: infra.config },
      { provide: EVENT_LOG, useValue: infra.log },
      { provide: PROJECTION_STORE, useValue: infra.projections },
      { provide: OBJECT_STORE, useValue: infra.objects },
      { provide: CLOCK, useValue: infra.clock },
      { provide: LOGGER, useValue: infra.logger },
      ReadinessRegistry,
    ];
    return {
      module: InfrastructureModule,
      providers: [...providers, PortsShutdown],
      exports: providers.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}
