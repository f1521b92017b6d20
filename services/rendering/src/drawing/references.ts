import { LIMITS } from '@thumbforge/contracts';
import sharp from 'sharp';
import type { Rgb } from '../domain/index.js';

/** The dominant and the mean colour of each reference image, for the palette. */
export async function referenceColours(images: Buffer[]): Promise<Rgb[]> {
  const perImage = await Promise.all(
    images.map(async (image) => {
      const stats = await sharp(image, { failOn: 'error', limitInputPixels: LIMITS.maxInputPixels }).stats();
      // Greyscale images have one colour channel (plus perhaps alpha), colour ones three.
      const means = stats.channels.map((c) => Math.round(c.mean));
      const mean =
        stats.channels.length >= 3
          ? { r: means[0]!, g: means[1]!, b: means[2]! }
          : { r: means[0]!, g: means[0]!, b: means[0]! };
      return [stats.dominant, mean];
    }),
  );
  return perImage.flat();
}
