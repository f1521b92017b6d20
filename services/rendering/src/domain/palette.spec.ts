import { CATEGORIES } from '@thumbforge/contracts';
import { describe, expect, it } from 'vitest';
import { contrastRatio, mix, parseHex } from './colour.js';
import {
  CONCRETE_CATEGORIES,
  hashTitle,
  paletteFor,
  paletteFromColours,
  resolveCategory,
  type Palette,
} from './palette.js';

function assertReadable(palette: Palette) {
  const from = parseHex(palette.from);
  const middle = mix(from, parseHex(palette.to), 0.5);
  for (const text of [palette.title, palette.emphasis]) {
    expect(contrastRatio(parseHex(text), from)).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(parseHex(text), middle)).toBeGreaterThanOrEqual(4.5);
  }
}

describe('category palettes', () => {
  it('covers the 12 concrete categories of the contract', () => {
    expect([...CONCRETE_CATEGORIES].sort()).toEqual(CATEGORIES.filter((c) => c !== 'auto').sort());
  });

  it.each(CONCRETE_CATEGORIES)('%s has a readable title and emphasis colour', (category) => {
    assertReadable(paletteFor(category, 'any title'));
  });

  it('gives each category its own scheme', () => {
    const schemes = new Set(CONCRETE_CATEGORIES.map((c) => JSON.stringify(paletteFor(c, 'x'))));
    expect(schemes.size).toBe(CONCRETE_CATEGORIES.length);
  });
});

describe('auto', () => {
  it('picks a category from the title, always the same one for the same title', () => {
    const title = 'My First Marathon';
    expect(resolveCategory('auto', title)).toBe(CONCRETE_CATEGORIES[hashTitle(title) % 12]);
    expect(paletteFor('auto', title)).toEqual(paletteFor(resolveCategory('auto', title), title));
  });

  it('spreads titles over the categories', () => {
    const picked = new Set(
      Array.from({ length: 200 }, (_, i) => resolveCategory('auto', `Title number ${i}`)),
    );
    expect(picked.size).toBe(12);
  });

  it('leaves an explicit category alone', () => {
    expect(resolveCategory('gaming', 'anything')).toBe('gaming');
  });

  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
  ])('hashTitle(%j) is FNV-1a', (text, hash) => {
    expect(hashTitle(text)).toBe(hash);
  });
});

describe('palettes from reference colours', () => {
  it.each([
    ['vivid red and dark grey', ['#dc2626', '#1f2937']],
    ['only pale colours', ['#fef3c7', '#f5f5f4', '#e0f2fe']],
    ['only mid grey', ['#808080']],
    ['pure white', ['#ffffff']],
    ['saturated yellow and green', ['#facc15', '#22c55e']],
  ])('%s give a readable palette built from them', (_name, colours) => {
    const palette = paletteFromColours(colours.map(parseHex), 'tech-saas', 't');
    assertReadable(palette);
    expect(palette).not.toEqual(paletteFor('tech-saas', 't'));
  });

  it('takes the darkest colour for the title side and the most colourful for the far side', () => {
    const palette = paletteFromColours(
      [parseHex('#1e3a8a'), parseHex('#f97316'), parseHex('#e5e7eb')],
      'travel',
      't',
    );
    const to = parseHex(palette.to);
    expect(to.r).toBeGreaterThan(to.b);
    expect(parseHex(palette.from).b).toBeGreaterThan(parseHex(palette.from).r);
  });

  it('falls back to the category palette without colours', () => {
    expect(paletteFromColours([], 'gaming', 't')).toEqual(paletteFor('gaming', 't'));
  });
});
