import { escapeMarkup, type BundledFont } from '@thumbforge/imaging';
import sharp from 'sharp';
import type { Measure } from '../domain/index.js';

/** Size the measurements are taken at; widths in em are exact to about 1/400 em. */
const REFERENCE_SIZE = 400;
/** Cairo surfaces stop at 32767 px: long strings are measured at a smaller size to stay under it. */
const MAX_SURFACE_WIDTH = 24_000;

function referenceSize(text: string): number {
  return Math.max(
    8,
    Math.min(REFERENCE_SIZE, Math.floor(MAX_SURFACE_WIDTH / Math.max(1, [...text].length + 2))),
  );
}
const CACHE_LIMIT = 20_000;
const cache = new Map<string, number>();

/** Width in pixels of the inked area of `text` rendered by Pango at `size`. */
async function inkWidth(text: string, font: BundledFont, size: number): Promise<number> {
  const { info } = await sharp({
    text: {
      text: escapeMarkup(text),
      font: `${font.family} ${size}px`,
      fontfile: font.file,
      dpi: 72,
    },
  })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return info.width;
}

/**
 * Advance width in em of each string, measured with the real font and Pango shaping. Pango crops its
 * output to the ink, so the text is measured between two bars and the bars' own width subtracted:
 * that yields the advance, side bearings and spaces included.
 */
async function advance(text: string, font: BundledFont): Promise<number> {
  const key = `${font.family}\u0000${text}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const size = referenceSize(text);
  const [bars, framed] = await Promise.all([inkWidth('||', font, size), inkWidth(`|${text}|`, font, size)]);
  const em = Math.max(0, framed - bars) / size;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, em);
  return em;
}

/** Measures every string beforehand and answers layoutTitle's synchronous questions from the results. */
export async function measureAll(texts: string[], font: BundledFont): Promise<Measure> {
  const unique = [...new Set(texts)];
  const widths = new Map(await Promise.all(unique.map(async (t) => [t, await advance(t, font)] as const)));
  return (text) => {
    const width = widths.get(text);
    if (width === undefined) throw new Error(`text was not measured beforehand: ${JSON.stringify(text)}`);
    return width;
  };
}
