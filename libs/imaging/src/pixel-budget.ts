import { LIMITS } from '@thumbforge/contracts';

export interface PixelBudget {
  maxSide: number;
  maxAspectRatio: number;
  maxPixels: number;
}

/** What every image the service decodes or creates must fit: uploads, and intermediates while drawing. */
export const PIXEL_BUDGET: PixelBudget = {
  maxSide: LIMITS.maxImageSide,
  maxAspectRatio: LIMITS.maxImageAspectRatio,
  maxPixels: LIMITS.maxInputPixels,
};

/**
 * Why an image of `width`x`height` breaks the budget, naming the limit, or null when it fits.
 * Pure: callers read the size from the header, so nothing is decoded before this answers.
 */
export function pixelBudgetViolation(
  width: number,
  height: number,
  budget: PixelBudget = PIXEL_BUDGET,
): string | null {
  const size = `${width}x${height}`;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    return `has no valid size (${size})`;
  }
  if (Math.max(width, height) > budget.maxSide) {
    return `is too large (${size}; at most ${budget.maxSide.toLocaleString('en-US')} pixels a side)`;
  }
  if (Math.max(width, height) / Math.min(width, height) > budget.maxAspectRatio) {
    return `is too narrow (${size}; the longer side may be at most ${budget.maxAspectRatio} times the shorter)`;
  }
  if (width * height > budget.maxPixels) {
    return `has too many pixels (${size}; at most ${budget.maxPixels.toLocaleString('en-US')})`;
  }
  return null;
}

/** For code drawing an intermediate image: fail the work before allocating it. */
export function assertWithinPixelBudget(what: string, width: number, height: number): void {
  const violation = pixelBudgetViolation(width, height, { ...PIXEL_BUDGET, maxAspectRatio: Infinity });
  if (violation) throw new RangeError(`${what} ${violation}`);
}
