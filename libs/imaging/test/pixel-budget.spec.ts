import { describe, expect, it } from 'vitest';
import { assertWithinPixelBudget, PIXEL_BUDGET, pixelBudgetViolation } from '../src/index.js';

describe('pixelBudgetViolation', () => {
  it.each([
    [1280, 720, null],
    [1, 1, null],
    [8, 1, null],
    [1, 8, null],
    [12_000, 1_500, null],
    [6_000, 6_000, null],
    [9, 1, 'is too narrow (9x1; the longer side may be at most 8 times the shorter)'],
    [10_000, 1, 'is too narrow (10000x1; the longer side may be at most 8 times the shorter)'],
    [1, 10_000, 'is too narrow (1x10000; the longer side may be at most 8 times the shorter)'],
    [20_000, 20, 'is too large (20000x20; at most 12,000 pixels a side)'],
    [12_001, 12_000, 'is too large (12001x12000; at most 12,000 pixels a side)'],
    [8_000, 8_000, 'has too many pixels (8000x8000; at most 40,000,000)'],
    [0, 10, 'has no valid size (0x10)'],
    [10, Number.NaN, 'has no valid size (10xNaN)'],
    [2.5, 10, 'has no valid size (2.5x10)'],
  ])('%i x %i → %s', (width, height, expected) => {
    expect(pixelBudgetViolation(width, height)).toBe(expected);
  });

  it('takes its limits from LIMITS', () => {
    expect(PIXEL_BUDGET).toEqual({ maxSide: 12_000, maxAspectRatio: 8, maxPixels: 40_000_000 });
  });
});

describe('assertWithinPixelBudget', () => {
  it('lets a wide intermediate through: only its side and pixel count are bounded', () => {
    expect(() => assertWithinPixelBudget('photo', 11_520, 1_440)).not.toThrow();
  });

  it('throws naming the image and the limit before anything is allocated', () => {
    expect(() => assertWithinPixelBudget('scaled photo', 7_200_000, 720)).toThrow(
      'scaled photo is too large (7200000x720; at most 12,000 pixels a side)',
    );
  });
});
