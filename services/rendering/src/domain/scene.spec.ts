import { dimensionsOf, FORMATS, LOGO_POSITIONS, MODELS, type Format } from '@thumbforge/contracts';
import { describe, expect, it } from 'vitest';
import { intersects, logoRect, planScene } from './scene.js';
import type { Rect } from './title-layout.js';

const inside = (r: Rect, canvas: { width: number; height: number }) =>
  r.x >= 0 && r.y >= 0 && r.x + r.width <= canvas.width && r.y + r.height <= canvas.height;

describe('planScene', () => {
  const landscape: Format[] = ['youtube', 'x', 'blogpost', 'linkedin'];

  it.each(landscape)('%s: the photo fills the right side, the title the left', (format) => {
    const canvas = dimensionsOf(format, 'sd');
    const scene = planScene(canvas, { hasPhoto: true, logo: null, direction: 'ltr' });
    expect(scene.photo!.fadeEdge).toBe('left');
    expect(scene.photo!.rect.x + scene.photo!.rect.width).toBe(canvas.width);
    expect(scene.photo!.rect.height).toBe(canvas.height);
    expect(scene.titleBox.x).toBeLessThan(scene.photo!.rect.x);
    expect(scene.align).toBe('left');
    // Only the faded edge of the photo may lie under the title.
    expect(scene.titleBox.x + scene.titleBox.width - scene.photo!.rect.x).toBeLessThanOrEqual(
      canvas.width * 0.05,
    );
  });

  it.each(landscape)('%s: a right-to-left title mirrors the scene', (format) => {
    const canvas = dimensionsOf(format, 'sd');
    const scene = planScene(canvas, { hasPhoto: true, logo: null, direction: 'rtl' });
    expect(scene.photo).toMatchObject({ fadeEdge: 'right', rect: { x: 0 } });
    expect(scene.align).toBe('right');
    expect(scene.titleBox.x + scene.titleBox.width).toBeLessThan(canvas.width);
  });

  it('instagram: the photo sits below the title', () => {
    const canvas = dimensionsOf('instagram', 'sd');
    const scene = planScene(canvas, { hasPhoto: true, logo: null, direction: 'ltr' });
    expect(scene.photo).toMatchObject({ fadeEdge: 'top', rect: { x: 0, width: canvas.width } });
    expect(scene.photo!.rect.y + scene.photo!.rect.height).toBe(canvas.height);
    expect(scene.titleBox.y).toBeLessThan(scene.photo!.rect.y);
    expect(scene.align).toBe('centre');
  });

  it.each(FORMATS)('%s: without a photo the title is centred', (format) => {
    const canvas = dimensionsOf(format, 'sd');
    const scene = planScene(canvas, { hasPhoto: false, logo: null, direction: 'ltr' });
    expect(scene.photo).toBeNull();
    expect(scene.align).toBe('centre');
    expect(scene.titleBox.x * 2 + scene.titleBox.width).toBe(canvas.width);
  });

  const logoCases = FORMATS.flatMap((format) =>
    MODELS.flatMap((model) =>
      LOGO_POSITIONS.flatMap((position) =>
        [true, false].map((hasPhoto) => [format, model, position, hasPhoto] as const),
      ),
    ),
  );
  it.each(logoCases)(
    '%s %s: a %s logo (photo: %s) stays clear of the title',
    (format, model, position, hasPhoto) => {
      const canvas = dimensionsOf(format, model);
      const logo = logoRect(canvas, { position, size: 0.2 }, 2);
      const scene = planScene(canvas, { hasPhoto, logo, direction: 'ltr' });
      expect(intersects(scene.titleBox, logo)).toBe(false);
      expect(inside(scene.titleBox, canvas)).toBe(true);
      expect(scene.titleBox.width * scene.titleBox.height).toBeGreaterThan(
        canvas.width * canvas.height * 0.15,
      );
    },
  );

  it('keeps a centred title centred when it makes room for a logo', () => {
    const canvas = dimensionsOf('youtube', 'sd');
    const logo = logoRect(canvas, { position: 'bottom-right', size: 0.15 }, 2);
    const box = planScene(canvas, { hasPhoto: false, logo, direction: 'ltr' }).titleBox;
    expect(box.y + box.height / 2).toBeCloseTo(canvas.height / 2, 5);
  });
});

describe('logoRect', () => {
  it.each(LOGO_POSITIONS)('puts a %s logo in its corner at its share of the width', (position) => {
    const canvas = dimensionsOf('youtube', 'sd');
    const rect = logoRect(canvas, { position, size: 0.25 }, 2);
    expect(rect.width).toBe(320);
    expect(rect.height).toBe(160);
    expect(inside(rect, canvas)).toBe(true);
    const centreX = rect.x + rect.width / 2;
    const centreY = rect.y + rect.height / 2;
    expect(centreX < canvas.width / 2).toBe(position.endsWith('left'));
    expect(centreY < canvas.height / 2).toBe(position.startsWith('top'));
  });

  it('caps a tall logo at 40 % of the height, keeping its aspect ratio', () => {
    const rect = logoRect(dimensionsOf('youtube', 'hd'), { position: 'top-left', size: 0.5 }, 0.5);
    expect(rect.height).toBe(576);
    expect(rect.width).toBe(288);
  });
});
