import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, generate, startApp, type TestApp } from './support/app.js';
import { decode, pngDataUrl } from './support/images.js';

const SD = {
  youtube: [1280, 720],
  blogpost: [1200, 630],
  linkedin: [1200, 627],
  x: [1200, 675],
  instagram: [1024, 1024],
} as const;

describe('rendered output through the API', () => {
  let t: TestApp;
  let pro: { accountId: string; apiKey: string };
  beforeAll(async () => {
    t = await startApp({ RATE_LIMITS: 'pro=1000' });
    pro = await admin(t.url).createAccount('pro');
  });
  afterAll(() => t.close());
  beforeEach(() => t.clock.advance(1000));

  const matrix = Object.entries(SD).flatMap(([format, [w, h]]) =>
    (['sd', 'hd'] as const).flatMap((model) =>
      (['webp', 'png'] as const).map(
        (outputFormat) =>
          [format, model, outputFormat, model === 'hd' ? w * 2 : w, model === 'hd' ? h * 2 : h] as const,
      ),
    ),
  );

  it.each(matrix)(
    '%s %s %s decodes to exactly %ix%i in that encoding',
    async (format, model, outputFormat, width, height) => {
      const res = await generate(t.url, pro.apiKey, {
        title: `Matrix ${format} ${model}`,
        format,
        model,
        outputFormat,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.dimensions).toEqual({ width, height });
      expect(await decode(res.body.image)).toEqual({
        format: outputFormat,
        width,
        height,
        mime: `image/${outputFormat}`,
      });
    },
  );

  it('composites the inline photo and overlays the logo in its corner', async () => {
    const logo = await pngDataUrl(100, 100, { r: 255, g: 0, b: 255, alpha: 1 });
    const plain = await generate(t.url, pro.apiKey, {
      title: 'Corner check',
      format: 'youtube',
      outputFormat: 'png',
    });
    const withLogo = await generate(t.url, pro.apiKey, {
      title: 'Corner check',
      format: 'youtube',
      outputFormat: 'png',
      useLogo: true,
      logoImage: logo,
    });
    expect(withLogo.status).toBe(200);
    const pixels = async (dataUrl: string) =>
      sharp(Buffer.from(dataUrl.split(',')[1]!, 'base64'))
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
    const a = await pixels(plain.body.image);
    const b = await pixels(withLogo.body.image);
    // The default inline logo sits bottom-right: magenta appears there and nowhere in the plain render.
    const magentaIn = (img: typeof a, x0: number, y0: number, x1: number, y1: number) => {
      let count = 0;
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) {
          const i = (y * img.info.width + x) * 3;
          if (img.data[i]! > 230 && img.data[i + 1]! < 30 && img.data[i + 2]! > 230) count++;
        }
      return count;
    };
    expect(magentaIn(b, 960, 500, 1280, 720)).toBeGreaterThan(1000);
    expect(magentaIn(b, 0, 0, 320, 220)).toBe(0);
    expect(magentaIn(a, 0, 0, 1280, 720)).toBe(0);
  });
});
