import { describe, expect, it } from 'vitest';
import {
  contrastRatio,
  deltaE2000,
  inkFor,
  luminance,
  luminanceContrast,
  mix,
  parseHex,
  readableOn,
  saturation,
  toHex,
  toLab,
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

  it('mixes and measures colourfulness', () => {
    expect(toHex(mix(parseHex('#000000'), parseHex('#ffffff'), 0.5))).toBe('#808080');
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

describe('CIE Lab and CIEDE2000', () => {
  it('converts sRGB to Lab (D65)', () => {
    const white = toLab(parseHex('#ffffff'));
    expect(white.l).toBeCloseTo(100, 1);
    expect(Math.abs(white.a) + Math.abs(white.b)).toBeLessThan(0.05);
    const red = toLab(parseHex('#ff0000'));
    expect(red.l).toBeCloseTo(53.24, 1);
    expect(red.a).toBeCloseTo(80.09, 0);
    expect(red.b).toBeCloseTo(67.2, 0);
  });

  it.each([
    [{ l: 50, a: 2.6772, b: -79.7751 }, { l: 50, a: 0, b: -82.7485 }, 2.0425],
    [{ l: 50, a: 0, b: 0 }, { l: 50, a: -1, b: 2 }, 2.3669],
    [{ l: 50, a: 2.5, b: 0 }, { l: 73, a: 25, b: -18 }, 27.1492],
    [{ l: 60.2574, a: -34.0099, b: 36.2677 }, { l: 60.4626, a: -34.1751, b: 39.4387 }, 1.2644],
  ])('ΔE00 matches the reference data of Sharma et al. (%#)', (a, b, expected) => {
    expect(deltaE2000(a, b)).toBeCloseTo(expected, 3);
    expect(deltaE2000(b, a)).toBeCloseTo(expected, 3);
  });
});

describe('inkFor', () => {
  it('keeps the preferred colour when it reads over the whole span', () => {
    expect(inkFor(parseHex('#ffffff'), 0.01, 0.05, 4.5)).toEqual(parseHex('#ffffff'));
  });
  it('shades the colour until it reads', () => {
    const ink = inkFor(parseHex('#22d3ee'), 0.3, 0.4, 4.5)!;
    expect(
      Math.min(luminanceContrast(luminance(ink), 0.3), luminanceContrast(luminance(ink), 0.4)),
    ).toBeGreaterThanOrEqual(4.5);
  });
  it('gives up on a span from dark to bright: no colour reads on both', () => {
    expect(inkFor(parseHex('#ffffff'), 0.01, 0.9, 4.5)).toBeNull();
  });
});
