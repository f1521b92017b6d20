export const FORMATS = ['youtube', 'instagram', 'x', 'blogpost', 'linkedin'] as const;
export type Format = (typeof FORMATS)[number];

export const MODELS = ['sd', 'hd'] as const;
export type Model = (typeof MODELS)[number];

export const OUTPUT_FORMATS = ['webp', 'png'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const CATEGORIES = [
  'auto',
  'tech-saas',
  'business-finance',
  'education-tutorial',
  'fitness-wellness',
  'medical-healthcare',
  'lifestyle-vlog',
  'food-cooking',
  'travel',
  'gaming',
  'entertainment-comedy',
  'news-commentary',
  'creative-design',
] as const;
export type Category = (typeof CATEGORIES)[number];

export interface Dimensions {
  width: number;
  height: number;
}

/** Spec §2.2: the sd render. */
const SD_DIMENSIONS: Record<Format, Dimensions> = {
  youtube: { width: 1280, height: 720 },
  blogpost: { width: 1200, height: 630 },
  linkedin: { width: 1200, height: 627 },
  x: { width: 1200, height: 675 },
  instagram: { width: 1024, height: 1024 },
};

/** hd is exactly twice the sd size of the format (DESIGN §5). */
export function dimensionsOf(format: Format, model: Model): Dimensions {
  const sd = SD_DIMENSIONS[format];
  return model === 'hd' ? { width: sd.width * 2, height: sd.height * 2 } : { ...sd };
}

export const LOGO_POSITIONS = ['top-left', 'top-right', 'bottom-left', 'bottom-right'] as const;
export type LogoPosition = (typeof LOGO_POSITIONS)[number];

export const LIMITS = {
  titleMaxLength: 200,
  photoMaxBytes: 2 * 1024 * 1024,
  logoMaxBytes: 1 * 1024 * 1024,
  referenceSetMinImages: 1,
  referenceSetMaxImages: 6,
  requestBodyMaxBytes: 6 * 1024 * 1024,
  logoSizeMin: 0.05,
  logoSizeMax: 0.5,
  /** Decoded pixel cap for any uploaded image: a decompression bomb is refused before it is decoded. */
  maxInputPixels: 40_000_000,
  /** Longest side of an uploaded image. */
  maxImageSide: 12_000,
  /**
   * Longest side over shortest: a photo is cover-scaled to its slot, so a 10000x1 strip would grow
   * to millions of pixels a side. At 8:1 the largest slot's intermediate stays under 17 megapixels.
   */
  maxImageAspectRatio: 8,
} as const;
