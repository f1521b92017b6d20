import { Inject, Module } from '@nestjs/common';
import { CONFIG, LOGGER, type Config, type Logger } from '@thumbforge/platform';
import { limitCanvasBuffers, limitPixelCaches, Renderer } from '@thumbforge/design-engine';
import { boundLibvipsForRendering } from '@thumbforge/imaging';
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
    {
      provide: Renderer,
      // A title with characters no bundled font covers is still drawn (with visible boxes); the log says which.
      useFactory: (logger: Logger) =>
        new Renderer({ onMissingGlyphs: (report) => logger.warn(report, 'glyphs missing') }),
      inject: [LOGGER],
    },
    LocalGenerationModel,
    generationModelProvider,
    RenderOutcomes,
    RenderJobUseCase,
    RenderingConsumer,
  ],
})
export class RenderingModule {
  constructor(@Inject(CONFIG) config: Pick<Config, 'renderCacheBytes' | 'renderConcurrency'>) {
    boundLibvipsForRendering();
    limitPixelCaches(config.renderCacheBytes);
    limitCanvasBuffers(config.renderConcurrency);
  }
}
