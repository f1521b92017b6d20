import { describe, expect, it } from 'vitest';
import { Shaper } from './shaper.js';

const shaper = new Shaper();
const shape = (text: string, context: Parameters<Shaper['shape']>[3] = 'default') =>
  shaper.shape(text, 'montserrat-black', 0, context);

describe('Shaper', () => {
  it('keeps the most recently used shaped pieces up to its count, and shapes an evicted one again alike', () => {
    const own = new Shaper();
    const piece = (text: string) => own.shape(text, 'montserrat-black', 0, 'default');
    const first = piece('Kept');
    const evicted = piece('Evicted');
    for (let i = 0; i < Shaper.CACHE_ENTRIES - 2; i++) piece(`#${i}`);
    // Using 'Kept' makes it the most recent: the next new piece evicts 'Evicted' instead.
    expect(piece('Kept')).toBe(first);
    piece('one more');
    expect(piece('Kept')).toBe(first);
    const again = piece('Evicted');
    expect(again).not.toBe(evicted);
    expect(again).toEqual(evicted);
  });

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
    // A word is set in one face: Montserrat has no Greek, so all of it comes from Noto Sans.
    expect(new Set(shape('Ωμέγα').glyphs.map((g) => g.font))).toEqual(new Set(['noto-sans-black']));
  });

  it.each([
    ['Բարև', 'noto-sans-armenian-black'],
    ['გამარჯობა', 'noto-sans-georgian-black'],
    ['রান্না', 'noto-sans-bengali-black'],
    ['ਪੰਜਾਬੀ', 'noto-sans-gurmukhi-black'],
    ['ગુજરાતી', 'noto-sans-gujarati-black'],
    ['ଓଡ଼ିଆ', 'noto-sans-oriya-black'],
    ['தமிழ்', 'noto-sans-tamil-black'],
    ['తెలుగు', 'noto-sans-telugu-black'],
    ['ಕನ್ನಡ', 'noto-sans-kannada-black'],
    ['മലയാളം', 'noto-sans-malayalam-black'],
    ['සිංහල', 'noto-sans-sinhala-black'],
    ['ລາວ', 'noto-sans-lao-black'],
    ['ខ្មែរ', 'noto-sans-khmer-black'],
    ['မြန်မာ', 'noto-sans-myanmar-black'],
    ['አማርኛ', 'noto-sans-ethiopic-black'],
    // Black Han Sans lacks these syllables: the whole word moves to the face with all 11,172.
    ['한걡곂', 'nanum-gothic-extrabold'],
  ])('sets %s in %s, every character a real glyph', (text, font) => {
    const shaped = shape(text);
    expect(new Set(shaped.glyphs.map((g) => g.font))).toEqual(new Set([font]));
    expect(shaped.glyphs.every((g) => g.glyph !== 0)).toBe(true);
    expect(shaped.missing).toEqual([]);
  });

  it('draws what no font covers as a visible box and reports it', () => {
    const shaped = shape('A\u{10FFFD}B');
    expect(shaped.missing).toEqual(['\u{10FFFD}']);
    const box = shaped.glyphs.find((g) => g.glyph === 0)!;
    expect(shaper.outline(box.font, box.glyph).length).toBeGreaterThan(4);
  });

  it('shapes right to left in visual order, and mirrors brackets', () => {
    const ltr = shaper.shape('(مجاناً)', 'montserrat-black', 0, 'default', false);
    const rtl = shaper.shape('(مجاناً)', 'montserrat-black', 0, 'default', true);
    // The first glyph on the left is the closing bracket's (cluster at the end of the text), mirrored.
    expect(rtl.glyphs[0]!.cluster).toBe('(مجاناً)'.length - 1);
    expect(rtl.glyphs.at(-1)!.cluster).toBe(0);
    expect(rtl.glyphs[0]!.glyph).toBe(ltr.glyphs[0]!.glyph);
  });

  it('gives every grapheme a box of ink, emoji included', () => {
    const text = 'Hi👨‍👩‍👧‍👦!';
    const shaped = shape(text);
    const boxes = shaper.clusterBoxes(shaped);
    expect(boxes.map((b) => b.cluster).sort((a, b) => a - b)).toEqual([0, 1, 2, text.length - 1]);
    for (const b of boxes) expect(b.right).toBeGreaterThan(b.left);
  });

  it('keeps digits inside an Arabic word in the Arabic face', () => {
    expect(new Set(shape('٢٠٢٤').glyphs.map((g) => g.font))).toEqual(new Set(['noto-kufi-arabic-black']));
  });

  it('draws emoji as colour images, sequences whole', () => {
    const family = shape('👨‍👩‍👧');
    expect(family.emoji).toHaveLength(1);
    expect(shape('👨‍👩‍👧‍👦').emoji).toHaveLength(1);
    expect(shape('👍🏽#️⃣🏳️‍🌈').emoji).toHaveLength(3);
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
