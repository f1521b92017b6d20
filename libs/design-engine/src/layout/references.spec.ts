import { describe, expect, it } from 'vitest';
import { deltaE2000, parseHex, toLab, type Rgb } from './colour.js';
import {
  dominantColours,
  fidelity,
  meanLightness,
  paletteFromProfile,
  profileReferences,
  textPlacement,
  type Pixels,
} from './references.js';
import { STYLES } from './styles.js';

/** An image of colour blocks: [colour, share of the columns]. */
function blocks(parts: Array<[string, number]>, width = 64, height = 36): Pixels {
  const data = new Uint8Array(width * height * 3);
  for (let x = 0; x < width; x++) {
    let edge = 0;
    let colour: Rgb = parseHex(parts[0]![0]);
    for (const [hex, share] of parts) {
      edge += share * width;
      colour = parseHex(hex);
      if (x < edge) break;
    }
    for (let y = 0; y < height; y++) data.set([colour.r, colour.g, colour.b], (y * width + x) * 3);
  }
  return { data, width, height };
}

/** Black "text" strokes in a cell of a flat image: thin bars, dense edges. */
function withText(image: Pixels, cx: number, cy: number): Pixels {
  const data = Uint8Array.from(image.data);
  for (let y = Math.round(cy * image.height) - 3; y <= Math.round(cy * image.height) + 3; y++) {
    for (let x = Math.round(cx * image.width) - 6; x <= Math.round(cx * image.width) + 6; x++) {
      if (x % 3 === 0 || y % 3 === 0) data.set([255, 255, 255], (y * image.width + x) * 3);
    }
  }
  return { ...image, data };
}

describe('dominantColours', () => {
  it('finds the colours of an image with their shares', () => {
    const colours = dominantColours([
      blocks([
        ['#c81e1e', 0.75],
        ['#1e3cc8', 0.25],
      ]),
    ]);
    expect(colours).toHaveLength(2);
    expect(deltaE2000(toLab(colours[0]!.colour), toLab(parseHex('#c81e1e')))).toBeLessThan(1);
    expect(colours[0]!.weight).toBeCloseTo(0.75, 2);
    expect(colours[1]!.weight).toBeCloseTo(0.25, 2);
  });
  it('is deterministic', () => {
    const image = blocks([
      ['#123456', 0.3],
      ['#abcdef', 0.3],
      ['#fedcba', 0.4],
    ]);
    expect(dominantColours([image])).toEqual(dominantColours([image]));
  });
});

describe('textPlacement', () => {
  it('finds the busy patch of strokes', () => {
    const placement = textPlacement(withText(blocks([['#202020', 1]]), 0.25, 0.75))!;
    expect(placement.x).toBeLessThan(0.4);
    expect(placement.y).toBeGreaterThan(0.6);
  });
  it('finds none in a flat image', () => {
    expect(textPlacement(blocks([['#202020', 1]]))).toBeNull();
  });
});

describe('paletteFromProfile', () => {
  it('builds the palette from the references and keeps the text readable', () => {
    const profile = profileReferences([
      blocks([
        ['#f5e6c8', 0.7],
        ['#d9480f', 0.3],
      ]),
    ]);
    const palette = paletteFromProfile(profile, STYLES['travel']);
    expect(palette.base).toBe('#f5e6c8');
    expect(palette.accent).toBe('#d9480f');
    expect(palette.ink).toBe('#0c0c10');
  });
});

describe('fidelity', () => {
  const reference = profileReferences([
    withText(
      blocks([
        ['#0f766e', 0.6],
        ['#f59e0b', 0.4],
      ]),
      0.3,
      0.5,
    ),
  ]);
  it('is 1 for an output that is the reference', () => {
    const f = fidelity(reference, reference);
    expect(f.overall).toBeCloseTo(1, 6);
  });
  it('drops with colour, brightness and placement differences', () => {
    const other = profileReferences([
      withText(
        blocks([
          ['#7c3aed', 0.6],
          ['#fef08a', 0.4],
        ]),
        0.8,
        0.2,
      ),
    ]);
    const f = fidelity(reference, other);
    expect(f.palette).toBeLessThan(0.5);
    expect(f.placement).toBeLessThan(0.5);
    expect(f.overall).toBeLessThan(0.8);
  });
  it('scores a ΔE00 of about 5 at about 0.8', () => {
    const near = {
      ...reference,
      colours: reference.colours.map((c) => ({
        ...c,
        colour: { ...c.colour, r: Math.min(255, c.colour.r + 12) },
      })),
    };
    const f = fidelity(reference, near);
    expect(f.palette).toBeGreaterThan(0.7);
    expect(f.palette).toBeLessThan(1);
    expect(meanLightness([blocks([['#ffffff', 1]])])).toBeCloseTo(100, 1);
  });
});
