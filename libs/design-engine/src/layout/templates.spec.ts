import { dimensionsOf, FORMATS, LOGO_POSITIONS, type Format } from '@thumbforge/contracts';
import { describe, expect, it } from 'vitest';
import { durationBadgeZone, logoRect, planTemplate, type TemplateOptions } from './templates.js';
import { contains, intersects, type Rect } from './title-layout.js';

const options = (overrides: Partial<TemplateOptions> = {}): TemplateOptions => ({
  format: 'youtube',
  hasPhoto: false,
  logo: null,
  direction: 'ltr',
  variant: 0,
  length: 40,
  placement: null,
  ...overrides,
});

const landscape: Format[] = ['youtube', 'x', 'blogpost', 'linkedin'];

describe('planTemplate', () => {
  it.each(FORMATS)('%s: every template keeps the title inside the canvas, with a margin', (format) => {
    const canvas = dimensionsOf(format, 'sd');
    const frame = { x: 0, y: 0, ...canvas };
    for (const hasPhoto of [false, true]) {
      for (let variant = 0; variant < 6; variant++) {
        for (const length of [10, 60, 200]) {
          const t = planTemplate(canvas, options({ format, hasPhoto, variant, length }));
          expect(contains(frame, t.titleBox)).toBe(true);
          expect(t.titleBox.x).toBeGreaterThanOrEqual(t.padding * 0.99);
          expect(t.titleBox.width).toBeGreaterThan(canvas.width * 0.4);
          expect(t.titleBox.height).toBeGreaterThan(canvas.height * 0.3);
        }
      }
    }
  });

  it('has several title-only templates per aspect', () => {
    for (const format of ['youtube', 'linkedin', 'instagram'] as const) {
      const ids = new Set(
        [0, 1, 2, 3, 4, 5].map(
          (variant) => planTemplate(dimensionsOf(format, 'sd'), options({ format, variant })).id,
        ),
      );
      expect(ids.size).toBeGreaterThanOrEqual(2);
    }
  });

  it('keeps the YouTube duration badge clear in every template', () => {
    const canvas = dimensionsOf('youtube', 'sd');
    const badge = durationBadgeZone(canvas);
    for (const hasPhoto of [false, true]) {
      for (let variant = 0; variant < 6; variant++) {
        for (const direction of ['ltr', 'rtl'] as const) {
          const t = planTemplate(canvas, options({ hasPhoto, variant, direction }));
          expect(intersects(t.titleBox, badge)).toBe(false);
        }
      }
    }
  });

  it.each(landscape)('%s: the photo fills one side, the title the other', (format) => {
    const canvas = dimensionsOf(format, 'sd');
    const ltr = planTemplate(canvas, options({ format, hasPhoto: true }));
    expect(ltr.photo!.fadeEdge).toBe('left');
    expect(ltr.photo!.rect.x + ltr.photo!.rect.width).toBe(canvas.width);
    expect(ltr.titleBox.x + ltr.titleBox.width).toBeLessThanOrEqual(ltr.photo!.rect.x + canvas.width * 0.04);
    const rtl = planTemplate(canvas, options({ format, hasPhoto: true, direction: 'rtl' }));
    expect(rtl.photo).toMatchObject({ fadeEdge: 'right', rect: { x: 0 } });
    expect(rtl.align).toBe('right');
  });

  it('gives long titles more room beside the photo', () => {
    const canvas = dimensionsOf('youtube', 'sd');
    const short = planTemplate(canvas, options({ hasPhoto: true, length: 20 }));
    const long = planTemplate(canvas, options({ hasPhoto: true, length: 150 }));
    expect(long.titleBox.width).toBeGreaterThan(short.titleBox.width);
  });

  it('instagram: the photo sits below the title', () => {
    const canvas = dimensionsOf('instagram', 'sd');
    const t = planTemplate(canvas, options({ format: 'instagram', hasPhoto: true }));
    expect(t.photo).toMatchObject({ fadeEdge: 'top', sideFade: 'left' });
    expect(t.photo!.rect.x + t.photo!.rect.width).toBe(canvas.width);
    expect(t.photo!.rect.y + t.photo!.rect.height).toBe(canvas.height);
    expect(t.titleBox.y + t.titleBox.height).toBeLessThanOrEqual(t.photo!.rect.y + canvas.height * 0.04);
  });

  it.each(LOGO_POSITIONS)('keeps the title clear of a logo at %s', (position) => {
    for (const format of FORMATS) {
      const canvas = dimensionsOf(format, 'sd');
      const logo = logoRect(canvas, { position, size: 0.2 }, 2, format);
      for (let variant = 0; variant < 3; variant++) {
        const t = planTemplate(canvas, options({ format, logo, variant }));
        expect(intersects(t.titleBox, logo)).toBe(false);
      }
    }
  });

  it('mirrors a reference set: text where the references have theirs', () => {
    const canvas = dimensionsOf('youtube', 'sd');
    const t = planTemplate(canvas, options({ placement: { x: 0.8, y: 0.75, height: 0.3 } }));
    expect(t.align).toBe('right');
    expect(t.verticalAlign).toBe('bottom');
    expect(t.titleBox.x).toBeGreaterThan(canvas.width * 0.15);
  });
});

describe('logoRect', () => {
  const canvas = dimensionsOf('youtube', 'sd');
  it('sizes the logo by the width share and keeps its aspect', () => {
    expect(logoRect(canvas, { position: 'top-left', size: 0.2 }, 2)).toEqual({
      x: 25,
      y: 25,
      width: 256,
      height: 128,
    });
  });
  it('caps a tall logo at 40 % of the height', () => {
    const r = logoRect(canvas, { position: 'top-right', size: 0.5 }, 0.5);
    expect(r.height).toBe(288);
    expect(r.x + r.width).toBe(1280 - 25);
  });
  it('lifts a bottom-right YouTube logo above the duration badge', () => {
    const r: Rect = logoRect(canvas, { position: 'bottom-right', size: 0.15 }, 2, 'youtube');
    expect(intersects(r, durationBadgeZone(canvas))).toBe(false);
    const elsewhere = logoRect(dimensionsOf('x', 'sd'), { position: 'bottom-right', size: 0.15 }, 2, 'x');
    expect(elsewhere.y + elsewhere.height).toBe(675 - 24);
  });
});
