import { resultLocation, type GenerationResultDto } from '@thumbforge/contracts';
import type { JobView } from '@thumbforge/domain';
import type { ObjectStore } from '@thumbforge/object-store';

/** A completed job's generation result, its image read back from where rendering stored it. */
export async function jobResult(
  result: NonNullable<JobView['result']>,
  objects: ObjectStore,
): Promise<GenerationResultDto> {
  const { bucket, key } = resultLocation(result);
  const base64 = result.inlineImage ?? (await objects.get(bucket, key))?.body.toString('base64');
  const mime = result.outputFormat === 'png' ? 'image/png' : 'image/webp';
  return {
    image: base64 ? `data:${mime};base64,${base64}` : '',
    format: result.format,
    outputFormat: result.outputFormat,
    generationId: result.generationId,
    imageUrl: result.imageUrl,
    dimensions: { width: result.width, height: result.height },
  };
}
