import { describe, expect, it } from 'vitest';
import {
  contrastRatio,
  darkenTo,
  luminance,
  mix,
  parseHex,
  readableOn,
  saturation,
  toHex,
} from './colour.js';

describe('colour arithmetic', () => {
  it.each([
    ['#000000', { r: 0, g: 0, b: 0 }],
    ['#ffffff', { r: 255, g: 255, b: 255 }],
    ['#1d4ed8', { r: 29, g: 78, b: 216 }],
  ])('parses %s and prints it back', (hex, rgb) => {
    expect(parseHex(hex)).toEqual(rgb);
    expect(toHex(rgb)).toBe(hex);
  });

  it('refuses what is not #rrggbb', () => {
    expect(() => parseHex('#fff')).toThrow(/#rrggbb/);
    expect(() => parseHex('red')).toThrow(/#rrggbb/);
  });

  it.each([
    ['#ffffff', '#000000', 21],
    ['#777777', '#777777', 1],
    ['#ffffff', '#767676', 4.54],
  ])('contrast of %s on %s is %f (WCAG 2)', (a, b, ratio) => {
    expect(contrastRatio(parseHex(a), parseHex(b))).toBeCloseTo(ratio, 2);
  });

  it('mixes, darkens and measures colourfulness', () => {
    expect(toHex(mix(parseHex('#000000'), parseHex('#ffffff'), 0.5))).toBe('#808080');
    expect(luminance(darkenTo(parseHex('#f59e0b'), 0.05))).toBeLessThanOrEqual(0.05);
    expect(saturation(parseHex('#808080'))).toBe(0);
    expect(saturation(parseHex('#ff0000'))).toBe(1);
  });
});

describe('readableOn', () => {
  it('keeps the preferred colour when it already contrasts', () => {
    expect(readableOn(parseHex('#ffffff'), [parseHex('#0b1437')])).toEqual(parseHex('#ffffff'));
  });

  it.each([
    ['white on pale yellow', '#ffffff', ['#fef9c3']],
    ['yellow on white', '#facc15', ['#ffffff']],
    ['grey on grey', '#888888', ['#777777', '#999999']],
    ['cyan on a light-to-dark span', '#22d3ee', ['#e0f2fe', '#0c4a6e']],
  ])('fixes %s so it reaches 4.5:1 on every backdrop it can', (_name, fg, backdrops) => {
    const bgs = backdrops.map(parseHex);
    const fixed = readableOn(parseHex(fg), bgs);
    const worst = Math.min(...bgs.map((b) => contrastRatio(fixed, b)));
    const bestPossible = Math.max(
      Math.min(...bgs.map((b) => contrastRatio(parseHex('#ffffff'), b))),
      Math.min(...bgs.map((b) => contrastRatio(parseHex('#0c0c10'), b))),
    );
    expect(worst).toBeGreaterThanOrEqual(Math.min(4.5, bestPossible) - 1e-9);
  });
});
