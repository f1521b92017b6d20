import { describe, expect, it } from 'vitest';
import { Shaper } from './shaper.js';

const shaper = new Shaper();
const shape = (text: string, context: Parameters<Shaper['shape']>[3] = 'default') =>
  shaper.shape(text, 'montserrat-black', 0, context);

describe('Shaper', () => {
  it('measures with kerning: "AV" is narrower than "A" plus "V"', () => {
    expect(shape('AV').advance).toBeLessThan(shape('A').advance + shape('V').advance);
  });

  it('joins Arabic letters: inside a word they take other forms than alone, and sit closer', () => {
    const letters = ['ب', 'ي', 'ت'];
    const word = shape(letters.join(''));
    expect(word.glyphs.every((g) => g.font === 'noto-kufi-arabic-black')).toBe(true);
    const alone = new Set(letters.flatMap((l) => shape(l).glyphs.map((g) => g.glyph)));
    expect(word.glyphs.filter((g) => !alone.has(g.glyph)).length).toBeGreaterThanOrEqual(2);
    expect(word.advance).toBeLessThan(letters.reduce((sum, l) => sum + shape(l).advance, 0));
  });

  it('forms Devanagari conjuncts: fewer glyphs than characters', () => {
    const text = 'क्षत्रिय';
    expect(shape(text).glyphs.length).toBeLessThan([...text].length);
    expect(shape(text).glyphs.every((g) => g.font === 'poppins-extrabold')).toBe(true);
  });

  it('picks a face per script', () => {
    expect(shape('สวัสดี').glyphs[0]!.font).toBe('kanit-extrabold');
    expect(shape('שלום').glyphs[0]!.font).toBe('rubik-black');
    expect(shape('한국어').glyphs[0]!.font).toBe('black-han-sans');
    expect(shape('日本', 'japanese').glyphs[0]!.font).toBe('dela-gothic-one');
    expect(shape('中国', 'chinese').glyphs[0]!.font).toBe('zcool-qingke-huangyou');
    expect(shape('Ωμέγα').glyphs[0]!.font).toBe('montserrat-black');
  });

  it('keeps digits inside an Arabic word in the Arabic face', () => {
    expect(new Set(shape('٢٠٢٤').glyphs.map((g) => g.font))).toEqual(new Set(['noto-kufi-arabic-black']));
  });

  it('draws emoji as colour images, sequences whole', () => {
    const family = shape('👨‍👩‍👧');
    expect(family.emoji).toHaveLength(1);
    expect(family.glyphs).toHaveLength(0);
    expect(shape('GO🔥').emoji).toHaveLength(1);
    expect(shape('🇯🇵').emoji[0]!.file).toMatch(/1f1ef-1f1f5\.svg$/);
  });

  it('reports the ink box of what it shaped', () => {
    const m = shape('H');
    expect(m.inkTop).toBeCloseTo(shaper.capHeight('montserrat-black'), 6);
    expect(m.inkBottom).toBe(0);
    expect(m.inkLeft).toBeGreaterThan(0);
    expect(m.inkRight).toBeLessThan(m.advance);
    expect(shape('gy').inkBottom).toBeGreaterThan(0.1);
  });

  it('slants with the skew: the ink leans right at the top', () => {
    const upright = shaper.shape('I', 'anton', 0, 'default');
    const slanted = shaper.shape('I', 'anton', 0.2, 'default');
    expect(slanted.inkRight).toBeGreaterThan(upright.inkRight + 0.1);
  });

  it('gives every glyph an outline', () => {
    for (const g of shape('Ag').glyphs) expect(shaper.outline(g.font, g.glyph).length).toBeGreaterThan(4);
  });
});
