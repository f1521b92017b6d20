import { resultLocation, type RenderedResult } from '@thumbforge/contracts';
import { type GenerationResultDto } from '@thumbforge/contracts/api';
import { CONTENT_TYPES } from '@thumbforge/imaging';
import type { ObjectStore } from '@thumbforge/object-store';

/** A result's image as base64: from the event when it rode there, else from where rendering stored it. */
export async function resultImage(result: RenderedResult, objects: ObjectStore): Promise<string | undefined> {
  const { bucket, key } = resultLocation(result);
  return result.inlineImage ?? (await objects.get(bucket, key))?.body.toString('base64');
}

/** The generation result of a render, with its image (base64; '' when there is none). */
export function resultDto(result: RenderedResult, base64: string | undefined): GenerationResultDto {
  return {
    image: base64 ? `data:${CONTENT_TYPES[result.outputFormat]};base64,${base64}` : '',
    format: result.format,
    outputFormat: result.outputFormat,
    generationId: result.generationId,
    imageUrl: result.imageUrl,
    dimensions: { width: result.width, height: result.height },
  };
}

/** A completed job's generation result, its image read back from where rendering stored it. */
export async function jobResult(result: RenderedResult, objects: ObjectStore): Promise<GenerationResultDto> {
  return resultDto(result, await resultImage(result, objects));
}
