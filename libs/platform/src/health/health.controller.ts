import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { EVENT_LOG, type EventLog } from '@thumbforge/event-log';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';
import { ReadinessRegistry } from '../readiness.js';

/** Terminus documents a check with @nestjs/swagger when it can load it: only the gateway serves OpenAPI. */
const CHECK = { noCache: true, swaggerDocumentation: false };

/**
 * Liveness says the process serves; readiness says its storage answers and its consumers caught up.
 * Probes for the orchestrator, not the API: the gateway leaves them out of its OpenAPI document.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly readiness: ReadinessRegistry,
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(PROJECTION_STORE) private readonly projections: ProjectionStore,
    @Inject(OBJECT_STORE) private readonly objects: ObjectStore,
  ) {}

  @Get('live')
  @HealthCheck(CHECK)
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck(CHECK)
  ready() {
    const ping = (key: string, fn: () => Promise<void>) => async () => {
      const session = this.indicators.check(key);
      try {
        await fn();
        return session.up();
      } catch (error) {
        return session.down({ message: String(error) });
      }
    };
    return this.health.check([
      ping('eventLog', () => this.log.ping()),
      ping('projections', () => this.projections.ping()),
      ping('objects', () => this.objects.ping()),
      async () => {
        const session = this.indicators.check('consumers');
        const snapshot = this.readiness.snapshot();
        return snapshot.ready ? session.up() : session.down({ components: snapshot.components });
      },
    ]);
  }
}
