import { CATEGORIES, dimensionsOf, FORMATS, LOGO_POSITIONS, type JobSpec } from '@thumbforge/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  contains,
  contrastRatio,
  designThumbnail,
  intersects,
  logoRect,
  parseHex,
  titlePieces,
  type Design,
  type TextMeasurer,
} from '../src/layout/index.js';
import { Renderer } from '../src/engine.js';
import { Shaper } from '../src/paint/shaper.js';
import { jobSpec, logoImage } from '../testing/index.js';
import { changedBounds, renderedContrast } from './pixels.js';

/** Characters users type in titles, by script; CJK from the common sets of GB 2312, JIS and KS X 1001. */
function decodeRange(encoding: string, hi: [number, number], lo: [number, number], take: number): string[] {
  const decoder = new TextDecoder(encoding);
  const out: string[] = [];
  for (let h = hi[0]; h <= hi[1] && out.length < take; h++) {
    for (let l = lo[0]; l <= lo[1] && out.length < take; l++) {
      const c = decoder.decode(new Uint8Array([h, l]));
      if ([...c].length === 1 && c !== '\ufffd') out.push(c);
    }
  }
  return out;
}
const CJK = [
  ...decodeRange('gbk', [0xb0, 0xd7], [0xa1, 0xfe], 2000),
  ...decodeRange('euc-kr', [0xb0, 0xc8], [0xa1, 0xfe], 800),
  ...Array.from({ length: 0x3093 - 0x3041 }, (_, i) => String.fromCodePoint(0x3041 + i)),
  ...'、。「」！？ー'.split(''),
];
const LATIN = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éèêëàâäôöûüçñßøåæœÉÀÇŁźżąęğşıİ',
];
const ARABIC = [...'ابتثجحخدذرسشصضطظعغفقكلمنهويءآأإةىپچژگکی٠١٢٣'];
const EMOJI = ['🔥', '😂', '🚀', '👨‍👩‍👧', '🇯🇵', '❤️', '👍🏽', '✨', '💰', '🎮', '1️⃣'];
const WORDS = [
  'สวัสดี',
  'ญี่ปุ่น',
  'שלום',
  'עולם',
  'भारत',
  'यात्रा',
  'Привет',
  'Ωμέγα',
  '$1,000',
  '100%',
  '(new)',
  '"best"',
  '&',
  '<b>',
];

const word = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: fc.constantFrom(...LATIN), minLength: 1, maxLength: 14 }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...ARABIC), minLength: 2, maxLength: 9 }) },
  { weight: 1, arbitrary: fc.constantFrom(...EMOJI) },
  { weight: 1, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...CJK), minLength: 1, maxLength: 12 }) },
);
const limit = (title: string) => [...title].slice(0, 200).join('').trim();
const title = fc
  .oneof(
    { weight: 6, arbitrary: fc.array(word, { minLength: 1, maxLength: 40 }).map((w) => limit(w.join(' '))) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...LATIN), minLength: 60, maxLength: 60 }) },
    { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...CJK), minLength: 1, maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: fc.constantFrom(...LATIN, ' ', ' ', '!', '?', ':'), minLength: 150, maxLength: 200 })
        .map(limit),
    },
  )
  .filter((t) => t.trim().length > 0 && /[^\s]/u.test(t));

const job = fc.record({
  title,
  category: fc.constantFrom(...CATEGORIES),
  format: fc.constantFrom(...FORMATS),
  hasPhoto: fc.boolean(),
  logo: fc.option(
    fc.record({
      position: fc.constantFrom(...LOGO_POSITIONS),
      size: fc.double({ min: 0.05, max: 0.3, noNaN: true }),
    }),
    { nil: null },
  ),
});

const shaper = new Shaper();
const measurer: TextMeasurer = {
  measure: (text, font, skew, context) => shaper.shape(text, font, skew, context),
  capHeight: (font) => shaper.capHeight(font),
};

function check(design: Design): void {
  const { layout, template, canvas, palette } = design;
  expect(layout).not.toBeNull();
  const box = template.titleBox;
  // Inside its box: the exact shaped ink of every piece, plates and outline included.
  expect(contains({ x: 0, y: 0, ...canvas }, box)).toBe(true);
  expect(contains(box, layout!.bounds, 0.01)).toBe(true);
  for (const piece of layout!.pieces) {
    const ink = {
      x: piece.x + piece.metrics.inkLeft * piece.size,
      y: piece.baseline - piece.metrics.inkTop * piece.size,
      width: (piece.metrics.inkRight - piece.metrics.inkLeft) * piece.size,
      height: (piece.metrics.inkTop + piece.metrics.inkBottom) * piece.size,
    };
    expect(contains(box, ink, 0.01)).toBe(true);
  }
  for (const plate of layout!.emphasisPlates) expect(contains(box, plate, 0.01)).toBe(true);
  for (const zone of template.keepClear) expect(intersects(layout!.bounds, zone)).toBe(false);
  // Nothing clipped or dropped: every character of the title is placed, in order.
  expect(layout!.pieces.map((p) => p.text).join('')).toBe(
    titlePieces(design.title)
      .map((p) => p.text)
      .join(''),
  );
  // The palette reads at 4.5:1 (the rendered check below measures the pixels).
  expect(contrastRatio(parseHex(palette.ink), parseHex(palette.base))).toBeGreaterThanOrEqual(4.5);
  expect(contrastRatio(parseHex(palette.plateInk), parseHex(palette.plate))).toBeGreaterThanOrEqual(4.5);
  // Legible in a feed even for 200 characters (long titles shrink, down to this and never below).
  expect(design.capHeight / canvas.height).toBeGreaterThanOrEqual(0.035);
}

describe('properties over random titles', () => {
  // The two property runs below are heavy (1,000 layouts, 40 renders): their runner limit is generous so a
  // busy machine slows them down instead of failing them.
  it('1,000 titles: the text stays in its box, nothing is clipped, the palette reads', () => {
    fc.assert(
      fc.property(job, (j) => {
        const canvas = dimensionsOf(j.format, 'sd');
        const logo = j.logo ? logoRect(canvas, j.logo, 2, j.format) : null;
        check(
          designThumbnail(
            {
              title: j.title,
              category: j.category,
              format: j.format,
              canvas,
              hasPhoto: j.hasPhoto,
              logo,
              reference: null,
            },
            measurer,
          ),
        );
      }),
      { numRuns: 1000, seed: 20260427 },
    );
  }, 300_000);

  it('40 rendered titles: the pixels stay in the box and the text reads at 4.5:1 on what it covers', async () => {
    const renderer = new Renderer();
    const logo = await logoImage();
    const samples = fc.sample(job, { numRuns: 40, seed: 7 });
    for (const j of samples) {
      const spec: JobSpec = jobSpec({
        title: j.title,
        category: j.category,
        format: j.format,
        logo: j.logo ? { key: 'k', position: j.logo.position, size: j.logo.size, dropShadow: false } : null,
      });
      const composition = await renderer.compose(spec, j.logo ? { logo } : {}, { keepBackdrop: true });
      const { design, canvas, backdrop } = composition;
      const { worst, textPixels } = renderedContrast(composition, canvas);
      if (textPixels > 0) expect(worst, j.title).toBeGreaterThanOrEqual(4.5);
      const changed = changedBounds(backdrop!, canvas, composition.logo);
      if (!changed) continue;
      const room = design.layout!.minSize * 0.2 + 2;
      const box = design.template.titleBox;
      const grown = {
        x: box.x - room,
        y: box.y - room,
        width: box.width + 2 * room,
        height: box.height + 2 * room,
      };
      expect(contains(grown, changed), j.title).toBe(true);
    }
  }, 300_000);
});
