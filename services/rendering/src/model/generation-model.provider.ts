import type { FactoryProvider } from '@nestjs/common';
import { CONFIG, LOGGER, type Config, type Logger } from '@thumbforge/platform';
import { ImagesApi } from './images-api.js';
import { LocalGenerationModel } from './local.model.js';
import { OpenAiGenerationModel } from './openai.model.js';
import { GENERATION_MODEL, type GenerationModel } from './port.js';

export type GenerationModelConfig = Pick<
  Config,
  | 'generationModel'
  | 'imageModelUrl'
  | 'imageModelApiKey'
  | 'imageModelName'
  | 'imageModelTimeoutMs'
  | 'imageModelFallback'
>;

/** The generation model the configuration names: the built-in engine unless `openai` is chosen. */
export function createGenerationModel(
  config: GenerationModelConfig,
  local: GenerationModel,
  logger: Logger,
): GenerationModel {
  if (config.generationModel !== 'openai') return local;
  if (!config.imageModelUrl) throw new Error('IMAGE_MODEL_URL is required when GENERATION_MODEL=openai');
  return new OpenAiGenerationModel({
    api: new ImagesApi({
      baseUrl: config.imageModelUrl,
      apiKey: config.imageModelApiKey,
      model: config.imageModelName,
      timeoutMs: config.imageModelTimeoutMs,
    }),
    modelName: config.imageModelName,
    fallback: config.imageModelFallback,
    local,
    logger,
  });
}

export const generationModelProvider: FactoryProvider<GenerationModel> = {
  provide: GENERATION_MODEL,
  inject: [CONFIG, LocalGenerationModel, LOGGER],
  useFactory: (config: GenerationModelConfig, local: LocalGenerationModel, logger: Logger) =>
    createGenerationModel(config, local, logger),
};
