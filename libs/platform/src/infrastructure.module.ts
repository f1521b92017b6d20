import { Global, Module, type DynamicModule } from '@nestjs/common';
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
      providers,
      exports: providers.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}
