import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';

/** `/health/live` and `/health/ready` for any process: the embedded one and each cluster service. */
@Module({ imports: [TerminusModule], controllers: [HealthController] })
export class HealthModule {}
