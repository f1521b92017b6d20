/** sRGB colours and the WCAG contrast arithmetic the palettes are checked with. */
export interface Rgb {
  r: number;
  g: number;
  b: number;
}

export function parseHex(hex: string): Rgb {
  const match = /^#?([0-9a-f]{6})$/i.exec(hex);
  if (!match) throw new Error(`not a #rrggbb colour: ${hex}`);
  const value = parseInt(match[1]!, 16);
  return { r: (value >> 16) & 255, g: (value >> 8) & 255, b: value & 255 };
}

export function toHex({ r, g, b }: Rgb): string {
  const channel = (v: number) =>
    Math.round(Math.min(255, Math.max(0, v)))
      .toString(16)
      .padStart(2, '0');
  return `#${channel(r)}${channel(g)}${channel(b)}`;
}

/** Linear interpolation from `a` (t = 0) to `b` (t = 1). */
export function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return { r: a.r + (b.r - a.r) * t, g: a.g + (b.g - a.g) * t, b: a.b + (b.b - a.b) * t };
}

export const WHITE: Rgb = { r: 255, g: 255, b: 255 };
export const INK: Rgb = { r: 12, g: 12, b: 16 };

/** WCAG 2 relative luminance, 0 (black) to 1 (white). */
export function luminance({ r, g, b }: Rgb): number {
  const linear = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG 2 contrast ratio, 1 to 21. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** HSL saturation, 0 to 1: how colourful a colour is, whatever its lightness. */
export function saturation({ r, g, b }: Rgb): number {
  const max = Math.max(r, g, b) / 255;
  const min = Math.min(r, g, b) / 255;
  if (max === min) return 0;
  const lightness = (max + min) / 2;
  return (max - min) / (1 - Math.abs(2 * lightness - 1));
}

/** Darkens towards black until the luminance is at most `target`. */
export function darkenTo(colour: Rgb, target: number): Rgb {
  let out = colour;
  for (let i = 0; i < 40 && luminance(out) > target; i++) out = mix(out, { r: 0, g: 0, b: 0 }, 0.08);
  return out;
}

/**
 * The colour to draw text in over every one of `backdrops`: `preferred` when it reaches `minRatio`
 * against all of them, else the closest shade of it that does (mixed towards white or near-black),
 * else whichever of white and near-black contrasts best.
 */
export function readableOn(preferred: Rgb, backdrops: Rgb[], minRatio = 4.5): Rgb {
  const worst = (c: Rgb) => Math.min(...backdrops.map((b) => contrastRatio(c, b)));
  if (worst(preferred) >= minRatio) return preferred;
  for (let step = 1; step <= 10; step++) {
    for (const towards of [WHITE, INK]) {
      const candidate = roundRgb(mix(preferred, towards, step / 10));
      if (worst(candidate) >= minRatio) return candidate;
    }
  }
  return worst(WHITE) >= worst(INK) ? WHITE : INK;
}

export function roundRgb({ r, g, b }: Rgb): Rgb {
  return { r: Math.round(r), g: Math.round(g), b: Math.round(b) };
}
