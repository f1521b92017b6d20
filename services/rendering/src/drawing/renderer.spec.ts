import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { distance, jobSpec, logoImage, photoImage, pixels, solidImage } from '../../test/support/fixtures.js';
import { Renderer } from './renderer.js';

const renderer = new Renderer();
let photo: Buffer;
let logo: Buffer;

beforeAll(async () => {
  [photo, logo] = await Promise.all([photoImage(), logoImage()]);
});

describe('Renderer: content', () => {
  let withoutLogo: ReturnType<typeof pixels> | undefined;

  it('draws the photo as the subject on the far side of the title', async () => {
    const job = jobSpec({ outputFormat: 'png' });
    const img = await pixels((await renderer.render(job, { photo })).image);
    const plain = await pixels((await renderer.render(job, {})).image);
    // The right third is photo: green there, and not what the background has there.
    for (const [x, y] of [
      [1150, 120],
      [1200, 650],
      [1000, 60],
    ] as const) {
      const [r, g, b] = img.at(x, y);
      expect(g).toBeGreaterThan(150);
      expect(Math.max(r, b)).toBeLessThan(90);
      expect(distance(img.at(x, y), plain.at(x, y))).toBeGreaterThan(100);
    }
    // Its edge facing the title is faded: the far left of the photo slot is mostly background.
    const [, gEdge] = img.at(Math.round(1280 * 0.54) + 2, 360);
    expect(gEdge).toBeLessThan(img.at(1150, 360)[1]);
  });

  it('mirrors the scene for a right-to-left title: photo on the left', async () => {
    const img = await pixels(
      (await renderer.render(jobSpec({ title: 'مرحبا بالعالم', outputFormat: 'png' }), { photo })).image,
    );
    expect(img.at(100, 100)[1]).toBeGreaterThan(150);
    expect(img.at(1200, 100)[1]).toBeLessThan(150);
  });

  it.each(['top-left', 'top-right', 'bottom-left', 'bottom-right'] as const)(
    'overlays the logo last at its %s corner',
    async (position) => {
      const job = jobSpec({ outputFormat: 'png', logo: { key: 'k', position, size: 0.2, dropShadow: true } });
      const withLogo = await pixels((await renderer.render(job, { logo, photo })).image);
      withoutLogo ??= pixels((await renderer.render({ ...job, logo: null }, { photo })).image);
      const without = await withoutLogo;
      // 20 % of 1280 = 256 px wide, 128 px tall, 25 px from the edges.
      const cx = position.endsWith('left') ? 25 + 128 : 1280 - 25 - 128;
      const cy = position.startsWith('top') ? 25 + 64 : 720 - 25 - 64;
      expect(distance(withLogo.at(cx, cy), [255, 0, 255])).toBeLessThan(20);
      expect(distance(without.at(cx, cy), [255, 0, 255])).toBeGreaterThan(60);
    },
  );

  it('casts the logo shadow only when asked', async () => {
    const placement = { key: 'k', position: 'top-left' as const, size: 0.2, dropShadow: true };
    const shadowed = await pixels(
      (await renderer.render(jobSpec({ outputFormat: 'png', logo: placement }), { logo })).image,
    );
    const flat = await pixels(
      (
        await renderer.render(jobSpec({ outputFormat: 'png', logo: { ...placement, dropShadow: false } }), {
          logo,
        })
      ).image,
    );
    // Just below the logo's bottom edge, towards its right end.
    const below: [number, number] = [25 + 200, 25 + 128 + 4];
    const sum = (p: [number, number, number]) => p[0] + p[1] + p[2];
    expect(sum(shadowed.at(...below))).toBeLessThan(sum(flat.at(...below)));
  });

  it('draws a big, bright title over the dark side', async () => {
    const img = await pixels(
      (await renderer.render(jobSpec({ title: 'Big Title', outputFormat: 'png' }), {})).image,
    );
    let bright = 0;
    for (let y = 0; y < 720; y += 4)
      for (let x = 0; x < 1280; x += 4) if (Math.min(...img.at(x, y)) > 225) bright++;
    // Over 5 % of the sampled pixels are near-white title ink.
    expect(bright).toBeGreaterThan((320 * 180) / 20);
  });

  it('takes its colours from the reference set', async () => {
    const job = jobSpec({ outputFormat: 'png', title: 'Same Title' });
    const red = await pixels(
      (await renderer.render(job, { references: [await solidImage('#c81e1e')] })).image,
    );
    const blue = await pixels(
      (await renderer.render(job, { references: [await solidImage('#1e3cc8')] })).image,
    );
    const [r1, , b1] = red.at(1200, 650);
    const [r2, , b2] = blue.at(1200, 650);
    expect(r1).toBeGreaterThan(b1);
    expect(b2).toBeGreaterThan(r2);
  });

  it('renders markup-like and control characters literally', async () => {
    const title = '<b>Tom & "Jerry"</b> <span foreground="red">\u0007it\'s</span>';
    const result = await renderer.render(jobSpec({ title }), {});
    expect((await sharp(result.image).metadata()).width).toBe(1280);
  });

  it('renders a 200-character title and a single long word without overflowing', async () => {
    for (const title of ['Word '.repeat(40).trim(), 'Supercalifragilistic'.repeat(5)]) {
      const result = await renderer.render(jobSpec({ title, outputFormat: 'png' }), { photo });
      expect((await sharp(result.image).metadata()).width).toBe(1280);
    }
  });

  it('draws only the background for a title with no visible characters', async () => {
    const result = await renderer.render(jobSpec({ title: ' \t ' }), {});
    expect((await sharp(result.image).metadata()).width).toBe(1280);
  });

  it('is deterministic: the same job renders to the same bytes', async () => {
    const job = jobSpec({ logo: { key: 'k', position: 'bottom-right', size: 0.15, dropShadow: true } });
    const inputs = { photo, logo, references: [await solidImage('#0f766e')] };
    const [first, second] = await Promise.all([renderer.render(job, inputs), renderer.render(job, inputs)]);
    expect(first.image.equals(second.image)).toBe(true);
  });
});
