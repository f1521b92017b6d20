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

/** CIE L*a*b* (D65), the space colour differences are measured in. */
export interface Lab {
  l: number;
  a: number;
  b: number;
}

export function toLab({ r, g, b }: Rgb): Lab {
  const linear = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const [lr, lg, lb] = [linear(r), linear(g), linear(b)];
  const x = (0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / 0.95047;
  const y = 0.2126729 * lr + 0.7151522 * lg + 0.072175 * lb;
  const z = (0.0193339 * lr + 0.119192 * lg + 0.9503041 * lb) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 / 116) * t + 16 / 116);
  const [fx, fy, fz] = [f(x), f(y), f(z)];
  return { l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz) };
}

/** CIEDE2000 colour difference: about 1 is just noticeable, above 10 clearly a different colour. */
export function deltaE2000(c1: Lab, c2: Lab): number {
  const rad = Math.PI / 180;
  const C1 = Math.hypot(c1.a, c1.b);
  const C2 = Math.hypot(c2.a, c2.b);
  const Cbar7 = ((C1 + C2) / 2) ** 7;
  const G = 0.5 * (1 - Math.sqrt(Cbar7 / (Cbar7 + 25 ** 7)));
  const a1 = (1 + G) * c1.a;
  const a2 = (1 + G) * c2.a;
  const C1p = Math.hypot(a1, c1.b);
  const C2p = Math.hypot(a2, c2.b);
  const hue = (b: number, a: number) => {
    if (a === 0 && b === 0) return 0;
    const h = Math.atan2(b, a) / rad;
    return h < 0 ? h + 360 : h;
  };
  const h1 = hue(c1.b, a1);
  const h2 = hue(c2.b, a2);
  const dL = c2.l - c1.l;
  const dC = C2p - C1p;
  let dh = 0;
  if (C1p * C2p !== 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    else if (dh < -180) dh += 360;
  }
  const dH = 2 * Math.sqrt(C1p * C2p) * Math.sin((dh / 2) * rad);
  const Lbar = (c1.l + c2.l) / 2;
  const Cbar = (C1p + C2p) / 2;
  let hbar = h1 + h2;
  if (C1p * C2p !== 0) {
    if (Math.abs(h1 - h2) <= 180) hbar = (h1 + h2) / 2;
    else hbar = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
  }
  const T =
    1 -
    0.17 * Math.cos((hbar - 30) * rad) +
    0.24 * Math.cos(2 * hbar * rad) +
    0.32 * Math.cos((3 * hbar + 6) * rad) -
    0.2 * Math.cos((4 * hbar - 63) * rad);
  const dTheta = 30 * Math.exp(-(((hbar - 275) / 25) ** 2));
  const Cbar7p = Cbar ** 7;
  const RC = 2 * Math.sqrt(Cbar7p / (Cbar7p + 25 ** 7));
  const SL = 1 + (0.015 * (Lbar - 50) ** 2) / Math.sqrt(20 + (Lbar - 50) ** 2);
  const SC = 1 + 0.045 * Cbar;
  const SH = 1 + 0.015 * Cbar * T;
  const RT = -Math.sin(2 * dTheta * rad) * RC;
  return Math.sqrt((dL / SL) ** 2 + (dC / SC) ** 2 + (dH / SH) ** 2 + RT * (dC / SC) * (dH / SH));
}

/** Mixes towards white (t > 0) or black (t < 0). */
export function shade(colour: Rgb, t: number): Rgb {
  return t >= 0 ? mix(colour, WHITE, t) : mix(colour, { r: 0, g: 0, b: 0 }, -t);
}

/** HSL lightness, 0 to 1. */
export function lightness({ r, g, b }: Rgb): number {
  return (Math.max(r, g, b) + Math.min(r, g, b)) / 510;
}

/** WCAG contrast ratio of two relative luminances. */
export function luminanceContrast(a: number, b: number): number {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

/**
 * The text colour for a backdrop whose luminance spans `darkest` to `brightest`: `preferred` when it
 * reaches `minRatio` against the whole span, else the closest shade of it towards white or
 * near-black that does, else white or near-black; null when no colour can (a span from dark to
 * bright needs a scrim first).
 */
export function inkFor(preferred: Rgb, darkest: number, brightest: number, minRatio: number): Rgb | null {
  const worst = (c: Rgb) => {
    const l = luminance(c);
    return Math.min(luminanceContrast(l, darkest), luminanceContrast(l, brightest));
  };
  if (worst(preferred) >= minRatio) return preferred;
  for (let step = 1; step <= 10; step++) {
    for (const towards of [WHITE, INK]) {
      const candidate = roundRgb(mix(preferred, towards, step / 10));
      if (worst(candidate) >= minRatio) return candidate;
    }
  }
  return null;
}
