import { dimensionsOf, FORMATS, MODELS, OUTPUT_FORMATS } from '@thumbforge/contracts';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PLACEHOLDER_TEXT, renderPlaceholder } from '../src/index.js';

const cases = FORMATS.flatMap((format) =>
  MODELS.flatMap((model) => OUTPUT_FORMATS.map((outputFormat) => [format, model, outputFormat] as const)),
);

describe('renderPlaceholder', () => {
  it.each(cases)('%s %s %s has the exact dimensions and encoding', async (format, model, outputFormat) => {
    const image = await renderPlaceholder(format, model, outputFormat);
    const meta = await sharp(image).metadata();
    expect({ width: meta.width, height: meta.height, format: meta.format }).toEqual({
      ...dimensionsOf(format, model),
      format: outputFormat,
    });
  });

  it('is opaque RGB with bright text over a dark background in the middle band', async () => {
    const { data, info } = await sharp(await renderPlaceholder('youtube', 'sd', 'png'))
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(1);
    const at = (x: number, y: number) => data[y * info.width + x]!;
    let brightInBand = 0;
    for (let y = 260; y < 460; y++) for (let x = 0; x < 1280; x++) if (at(x, y) > 230) brightInBand++;
    expect(brightInBand).toBeGreaterThan(5000);
    expect(Math.max(at(5, 5), at(1275, 5), at(5, 715), at(1275, 715))).toBeLessThan(120);
  });

  it('is rendered once and then served from the cache', async () => {
    const first = renderPlaceholder('x', 'sd', 'webp');
    const second = renderPlaceholder('x', 'sd', 'webp');
    expect(second).toBe(first);
    expect(await second).toBe(await first);
  });

  it('says what it is', () => {
    expect(PLACEHOLDER_TEXT).toBe('Thumbforge test image');
  });
});
