import { Injectable } from '@nestjs/common';
import type { JobSpec } from '@thumbforge/contracts';
import { Renderer } from '@thumbforge/design-engine';
import type { GeneratedImage, GenerationInputs, GenerationModel } from './port.js';

/** The built-in design engine behind the generation port. */
@Injectable()
export class LocalGenerationModel implements GenerationModel {
  constructor(private readonly renderer: Renderer) {}

  async generate(job: JobSpec, inputs: GenerationInputs, signal?: AbortSignal): Promise<GeneratedImage> {
    const { image, width, height } = await this.renderer.render(job, inputs, signal);
    return { image, width, height, by: 'local' };
  }
}
