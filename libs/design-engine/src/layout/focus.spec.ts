import { describe, expect, it } from 'vitest';
import { focusCrop, subjectFocus } from './focus.js';

function portrait(faceAt: { x: number; y: number }) {
  const width = 40;
  const height = 60;
  const data = new Uint8Array(width * height * 3).fill(30);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (Math.hypot(x - faceAt.x * width, y - faceAt.y * height) < 7)
        data.set([224, 172, 140], (y * width + x) * 3);
    }
  }
  return { data, width, height };
}

describe('subjectFocus', () => {
  it('finds the face: the centre of the skin-toned pixels', () => {
    const focus = subjectFocus(portrait({ x: 0.7, y: 0.3 }))!;
    expect(focus.x).toBeCloseTo(0.7, 1);
    expect(focus.y).toBeCloseTo(0.3, 1);
  });
  it('finds nothing without skin', () => {
    expect(subjectFocus({ data: new Uint8Array(40 * 60 * 3).fill(30), width: 40, height: 60 })).toBeNull();
  });
});

describe('focusCrop', () => {
  it('covers the slot and keeps the focus in view, with headroom', () => {
    const crop = focusCrop({ width: 900, height: 1200 }, { width: 600, height: 720 }, { x: 0.5, y: 0.5 });
    expect(crop.scaledWidth).toBeGreaterThanOrEqual(600);
    expect(crop.scaledHeight).toBeGreaterThanOrEqual(720);
    const fy = 0.5 * crop.scaledHeight - crop.top;
    expect(fy / 720).toBeCloseTo(0.4, 1);
  });
  it('stays within the image at its edges', () => {
    const crop = focusCrop({ width: 900, height: 1200 }, { width: 1024, height: 500 }, { x: 0.5, y: 0.02 });
    expect(crop.top).toBe(0);
    expect(crop.left).toBe(0);
  });
});
