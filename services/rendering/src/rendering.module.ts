import { Module } from '@nestjs/common';
import { Renderer } from '@thumbforge/design-engine';
import { boundImageMemory } from '@thumbforge/imaging';
import { generationModelProvider, LocalGenerationModel } from './model/index.js';
import { RenderJobUseCase } from './render-job/render-job.usecase.js';
import { RenderOutcomes } from './render-outcomes/render-outcomes.projection.js';
import { RenderingConsumer } from './rendering.consumer.js';

/**
 * The rendering service. Expects EVENT_LOG, PROJECTION_STORE, OBJECT_STORE, CONFIG, CLOCK, LOGGER and
 * ReadinessRegistry from the composition root.
 */
@Module({
  providers: [
    Renderer,
    LocalGenerationModel,
    generationModelProvider,
    RenderOutcomes,
    RenderJobUseCase,
    RenderingConsumer,
  ],
})
export class RenderingModule {
  constructor() {
    boundImageMemory();
  }
}
