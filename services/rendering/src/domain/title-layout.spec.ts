import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { titlePieces } from './text.js';
import { layoutTitle, type Measure, type TitleLayoutOptions } from './title-layout.js';

/** A monospaced stand-in for the font: 0.5 em per character, 0.25 em per space. */
const mono: Measure = (text) => (text === ' ' ? 0.25 : Array.from(text).length * 0.5);

function layout(
  title: string,
  box: { width: number; height: number },
  extra: Partial<TitleLayoutOptions> = {},
) {
  return layoutTitle({
    pieces: titlePieces(title),
    measure: mono,
    box,
    maxFontSize: 200,
    minFontSize: 40,
    ...extra,
  });
}

describe('layoutTitle', () => {
  it.each([
    // title, box, expected lines
    ['WOW', { width: 600, height: 400 }, ['WOW']],
    ['AAAA BBBB CCCC DDDD', { width: 500, height: 300 }, ['AAAA BBBB', 'CCCC DDDD']],
    ['AAAA BBBB CCCC DDDD', { width: 500, height: 600 }, ['AAAA', 'BBBB', 'CCCC', 'DDDD']],
    ['AAAA BBBB CCCC DDDD', { width: 2000, height: 200 }, ['AAAA BBBB CCCC DDDD']],
    ['ONE TWO THREE FOUR FIVE SIX', { width: 700, height: 450 }, ['ONE TWO', 'THREE FOUR', 'FIVE SIX']],
  ])('lays out %j in %o as %j', (title, box, lines) => {
    expect(layout(title, box).lines).toEqual(lines);
  });

  it('takes the line count that gives the largest text', () => {
    // 2 lines: 4.25 em wide, 2.21 em tall, so 117 px; 4 lines: 2 em wide, 4.33 em tall, so 138 px.
    const result = layout('AAAA BBBB CCCC DDDD', { width: 500, height: 600 });
    expect(result.lines).toHaveLength(4);
    expect(result.fontSize).toBeCloseTo(600 / 4.33, 1);
  });

  it('stops growing a short title at the maximum size', () => {
    const result = layout('WOW', { width: 5000, height: 5000 });
    expect(result.fontSize).toBe(200);
  });

  it('sizes text to the binding dimension', () => {
    // One line of 12 characters: 6 em wide, so 600 px wide fits 100 px; 1.15 em tall fits 200 px.
    expect(layout('ABCDEFGHIJKL', { width: 600, height: 1000 }, { maxLines: 1 }).fontSize).toBe(100);
    expect(layout('ABCDEFGHIJKL', { width: 60_000, height: 115 }, { maxLines: 1 }).fontSize).toBe(100);
  });

  it('balances lines instead of filling the first one greedily', () => {
    const result = layout('THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG', { width: 700, height: 500 });
    const widths = result.lineWidths;
    expect(Math.max(...widths) / Math.min(...widths)).toBeLessThan(1.5);
  });

  it('uses at most 4 lines for an ordinary title', () => {
    const result = layout('A B C D E F G H I J K L M N O P', { width: 400, height: 1200 });
    expect(result.lines.length).toBeLessThanOrEqual(4);
  });

  it('allows more lines for a long title that would otherwise be tiny', () => {
    const title = Array.from({ length: 30 }, (_, i) => `WORD${i}`).join(' ');
    const result = layout(title, { width: 600, height: 700 });
    expect(result.lines.length).toBeGreaterThan(4);
    expect(result.lines.join(' ')).toBe(title);
  });

  it('splits a word too wide for the box even at the minimum size', () => {
    const word = 'X'.repeat(60);
    const result = layout(word, { width: 400, height: 700 });
    expect(result.lines.length).toBeGreaterThan(1);
    expect(result.lines.join('')).toBe(word);
    expect(result.width).toBeLessThanOrEqual(400);
  });

  it('emphasises the last line of a multi-line title and nothing on one line', () => {
    expect(layout('AAAA BBBB CCCC DDDD', { width: 500, height: 300 }).emphasisLine).toBe(1);
    expect(layout('WOW', { width: 600, height: 400 }).emphasisLine).toBeNull();
  });

  it('keeps spaces only where the title had them', () => {
    expect(layout('日本語のテキスト', { width: 120, height: 900 }).lines.join('|')).not.toContain(' ');
  });

  it('refuses a title without visible characters', () => {
    expect(() => layout('   ', { width: 100, height: 100 })).toThrow(/visible/);
  });

  it('never overflows its box, whatever the title and box', () => {
    const word = fc.string({
      minLength: 1,
      maxLength: 25,
      unit: fc.constantFrom('A', 'B', 'W', 'I', '!', '日'),
    });
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 100, max: 3000 }),
        fc.integer({ min: 100, max: 2000 }),
        (words, width, height) => {
          const result = layout(words.join(' '), { width, height }, { minFontSize: 20 });
          expect(result.width).toBeLessThanOrEqual(width + 1e-6);
          expect(result.height).toBeLessThanOrEqual(height + 1e-6);
          expect(result.lines.join('').replace(/ /g, '')).toBe(words.join(''));
          expect(result.lines.length).toBeLessThanOrEqual(7);
        },
      ),
      { numRuns: 300 },
    );
  });
});
