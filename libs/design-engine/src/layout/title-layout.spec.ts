import { describe, expect, it } from 'vitest';
import { titleBidi } from './bidi.js';
import { titlePieces } from './line-breaks.js';
import { contains, layoutTitle, type MeasurePiece, type TitleLayoutOptions } from './title-layout.js';

/** Every character 0.5 em wide, capitals 0.7 em tall, no descenders; emphasised text 10 % wider. */
const mono: MeasurePiece = (text, emphasis) => {
  const width = [...text].length * 0.5 * (emphasis ? 1.1 : 1);
  return { advance: width, inkLeft: 0.02, inkRight: width - 0.02, inkTop: 0.7, inkBottom: 0 };
};

const box = { x: 100, y: 50, width: 800, height: 400 };

function options(title: string, overrides: Partial<TitleLayoutOptions> = {}): TitleLayoutOptions {
  return {
    pieces: titlePieces(title),
    levels: titleBidi(title).levels,
    emphasis: new Set(),
    measure: mono,
    box,
    align: 'left',
    verticalAlign: 'middle',
    mode: 'block',
    maxFontSize: 200,
    minFontSize: 30,
    maxLines: 4,
    longTitleMaxLines: 9,
    leading: 1,
    lineGap: 0.1,
    ...overrides,
  };
}

const lineTexts = (layout: ReturnType<typeof layoutTitle>) =>
  layout.lines.map((l) => l.pieces.map((p) => p.text).join(' '));

describe('layoutTitle', () => {
  it('sets a short title on one line, as large as allowed', () => {
    const layout = layoutTitle(options('Hello'));
    expect(lineTexts(layout)).toEqual(['Hello']);
    expect(layout.minSize).toBe(200);
  });

  it('balances lines instead of filling them greedily', () => {
    // Greedy filling would give "aa bb cc dd ee" and a ragged "ff gg".
    const layout = layoutTitle(
      options('aa bb cc dd ee ff gg', { maxLines: 2, longTitleMaxLines: 2, box: { ...box, height: 150 } }),
    );
    const [first, second] = layout.lines.map((l) => l.ink.width);
    expect(layout.lines).toHaveLength(2);
    expect(Math.min(first!, second!) / Math.max(first!, second!)).toBeGreaterThan(0.7);
  });

  it('keeps ink, plates and outline inside the box', () => {
    const layout = layoutTitle(
      options('The quick brown fox jumps over the lazy dog', {
        emphasis: new Set([2]),
        emphasisPlate: { x: 0.2, y: 0.15 },
        outline: 0.08,
        maxFontSize: 1000,
      }),
    );
    expect(contains(box, layout.bounds, 1e-6)).toBe(true);
    for (const plate of layout.emphasisPlates) expect(contains(box, plate, 1e-6)).toBe(true);
    // The box is used: the title fills its width or its height.
    expect(layout.bounds.width > box.width * 0.97 || layout.bounds.height > box.height * 0.97).toBe(true);
  });

  it('places every piece exactly once, in reading order', () => {
    const title = 'one two three four five six seven eight nine ten eleven twelve';
    const layout = layoutTitle(options(title));
    expect(layout.pieces.map((p) => p.text).join(' ')).toBe(title);
  });

  it('uses more lines for a long title rather than going below the minimum size', () => {
    const title = 'word '.repeat(40).trim();
    const layout = layoutTitle(options(title, { minFontSize: 40 }));
    expect(layout.lines.length).toBeGreaterThan(4);
    expect(layout.lines.length).toBeLessThanOrEqual(9);
  });

  it('cuts a word too long for any line between characters, at the minimum size or more', () => {
    const word = 'x'.repeat(60);
    const layout = layoutTitle(options(word));
    expect(layout.splitWords).toBe(true);
    expect(layout.pieces.map((p) => p.text).join('')).toBe(word);
    expect(layout.minSize).toBeGreaterThanOrEqual(30);
    expect(contains(box, layout.bounds, 1e-6)).toBe(true);
  });

  it('aligns lines left, right or centre on their ink', () => {
    const title = 'short and a much longer line';
    for (const align of ['left', 'right', 'centre'] as const) {
      const layout = layoutTitle(options(title, { align, maxLines: 2, maxFontSize: 90 }));
      for (const line of layout.lines) {
        if (align === 'left') expect(line.ink.x).toBeCloseTo(box.x, 6);
        if (align === 'right') expect(line.ink.x + line.ink.width).toBeCloseTo(box.x + box.width, 6);
        if (align === 'centre') expect(line.ink.x + line.ink.width / 2).toBeCloseTo(box.x + box.width / 2, 6);
      }
    }
  });

  it('sits the block at the top, middle or bottom of the box', () => {
    const top = layoutTitle(options('Hi', { verticalAlign: 'top', maxFontSize: 100 }));
    const bottom = layoutTitle(options('Hi', { verticalAlign: 'bottom', maxFontSize: 100 }));
    expect(top.bounds.y).toBeCloseTo(box.y, 6);
    expect(bottom.bounds.y + bottom.bounds.height).toBeCloseTo(box.y + box.height, 6);
  });

  it('stacks lines at different sizes, each filling the width, within the size range', () => {
    const layout = layoutTitle(
      options('THE incomprehensibilities', { mode: 'stack', maxLines: 2, stackRange: 1.6 }),
    );
    const sizes = layout.lines.map((l) => l.size);
    expect(Math.max(...sizes) / Math.min(...sizes)).toBeLessThanOrEqual(1.6 + 1e-3);
    expect(new Set(sizes).size).toBeGreaterThan(1);
    expect(contains(box, layout.bounds, 1e-6)).toBe(true);
  });

  it('orders a right-to-left line from right to left', () => {
    const layout = layoutTitle(options('تعلم البرمجة اليوم', { align: 'right', maxLines: 1 }));
    const [line] = layout.lines;
    const xs = line!.pieces.map((p) => p.x);
    expect(line!.pieces.map((p) => p.text)).toEqual(['اليوم', 'البرمجة', 'تعلم']);
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
  });

  it('never lets the ink of two lines touch', () => {
    const tall: MeasurePiece = (text) => ({
      advance: text.length * 0.5,
      inkLeft: 0,
      inkRight: text.length * 0.5,
      inkTop: 1.1,
      inkBottom: 0.5,
    });
    const layout = layoutTitle(
      options('one two three four five six', { measure: tall, maxLines: 3, leading: 0.9 }),
    );
    for (let i = 1; i < layout.lines.length; i++) {
      const above = layout.lines[i - 1]!.ink;
      expect(layout.lines[i]!.ink.y).toBeGreaterThanOrEqual(above.y + above.height);
    }
  });

  it('draws line bars and emphasis plates where the style asks', () => {
    const layout = layoutTitle(
      options('BREAKING news tonight', {
        emphasis: new Set([0]),
        emphasisPlate: { x: 0.1, y: 0.1 },
        linePlate: { x: 0.2, y: 0.1 },
      }),
    );
    expect(layout.lines.every((l) => l.plate !== null)).toBe(true);
    expect(layout.emphasisPlates).toHaveLength(1);
  });
});
