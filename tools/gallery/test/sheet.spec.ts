import { Renderer } from '@thumbforge/design-engine';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { sampleLogo, samplePhoto, sampleReferences } from '../src/fixtures.js';
import { cellInputs, cellJob, renderContactSheet, sheetLayout, type SheetOptions } from '../src/sheet.js';

const options: SheetOptions = {
  formats: ['youtube', 'instagram'],
  categories: ['gaming', 'travel'],
  options: ['plain', 'photo+logo'],
  model: 'sd',
  tileHeight: 60,
};

describe('contact sheet', () => {
  it('has a cell per format, category and option, none overlapping, all inside the sheet', () => {
    const layout = sheetLayout(options);
    expect(layout.cells).toHaveLength(8);
    for (const [i, a] of layout.cells.entries()) {
      expect(a.at.left + a.at.width).toBeLessThanOrEqual(layout.width);
      expect(a.at.top + a.at.height).toBeLessThanOrEqual(layout.height);
      for (const b of layout.cells.slice(i + 1)) {
        const apart =
          a.at.left + a.at.width <= b.at.left ||
          b.at.left + b.at.width <= a.at.left ||
          a.at.top + a.at.height <= b.at.top ||
          b.at.top + b.at.height <= a.at.top;
        expect(apart).toBe(true);
      }
    }
    // The youtube column is 16:9 at the tile height, the instagram one square.
    expect(layout.cells.find((c) => c.format === 'youtube')!.at.width).toBe(107);
    expect(layout.cells.find((c) => c.format === 'instagram')!.at.width).toBe(60);
  });

  it('asks for the photo, logo and references the option names', async () => {
    const samples = {
      photo: await samplePhoto(),
      logo: await sampleLogo(),
      references: await sampleReferences(),
    };
    const cell = { format: 'x', category: 'travel', option: 'photo+logo' } as const;
    expect(Object.keys(cellInputs(cell, samples)).sort()).toEqual(['logo', 'photo']);
    expect(cellJob(cell, 'sd')).toMatchObject({
      usePhoto: true,
      useLogo: true,
      format: 'x',
      outputFormat: 'png',
    });
    expect(Object.keys(cellInputs({ ...cell, option: 'references' }, samples))).toEqual(['references']);
  });

  it('renders the sheet as one PNG of the laid-out size, reporting progress', async () => {
    const samples = {
      photo: await samplePhoto(),
      logo: await sampleLogo(),
      references: await sampleReferences(),
    };
    const small = { ...options, categories: ['news-commentary' as const], options: ['references' as const] };
    const seen: number[] = [];
    const png = await renderContactSheet(new Renderer(), small, samples, (done) => seen.push(done));
    const meta = await sharp(png).metadata();
    const layout = sheetLayout(small);
    expect({ width: meta.width, height: meta.height, format: meta.format }).toEqual({
      width: layout.width,
      height: layout.height,
      format: 'png',
    });
    expect(seen).toEqual([1, 2]);
  });
});
