import { dimensionsOf, FORMATS, MODELS, OUTPUT_FORMATS } from '@thumbforge/contracts';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { jobSpec } from '../testing/index.js';
import { Renderer } from './engine.js';

const renderer = new Renderer();

describe('Renderer: output size and encoding', () => {
  const cases = FORMATS.flatMap((format) =>
    MODELS.flatMap((model) => OUTPUT_FORMATS.map((outputFormat) => [format, model, outputFormat] as const)),
  );
  it.each(cases)('%s %s %s decodes to the exact size and format', async (format, model, outputFormat) => {
    const result = await renderer.render(
      jobSpec({ format, model, outputFormat, title: 'Five Formats, Two Sizes' }),
      {},
    );
    const meta = await sharp(result.image).metadata();
    const expected = dimensionsOf(format, model);
    expect({ width: meta.width, height: meta.height, format: meta.format, alpha: meta.hasAlpha }).toEqual({
      ...expected,
      format: outputFormat,
      alpha: false,
    });
    expect({ width: result.width, height: result.height }).toEqual(expected);
  });
});
