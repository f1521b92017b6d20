import {
  contrastRatio,
  deltaE2000,
  INK,
  mix,
  parseHex,
  readableOn,
  roundRgb,
  shade,
  toHex,
  toLab,
  WHITE,
  type Lab,
  type Rgb,
} from './colour.js';
import type { PaletteSpec, Style } from './styles.js';
import type { TextPlacement } from './templates.js';

/** An image as plain pixels: RGB, row by row. */
export interface Pixels {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface WeightedColour {
  colour: Rgb;
  /** Share of the pixels, 0 to 1; the shares of a palette sum to 1. */
  weight: number;
}

/** What a reference set looks like, in numbers: what the output mirrors and is measured against. */
export interface ReferenceProfile {
  /** Dominant colours of the whole set, by share. */
  colours: WeightedColour[];
  /** Mean CIE L* of the set, 0 (black) to 100 (white). */
  lightness: number;
  /** Where the text sits and how tall the block is, when one can be found. */
  placement: TextPlacement | null;
  /** Mean chroma above 30: saturated, high-energy designs, which get a bolder title treatment. */
  vivid: boolean;
}

/**
 * The dominant colours of some pixels: k-means in CIE Lab, started deterministically from the most
 * populated cells of a coarse RGB histogram. Clusters closer than ΔE00 6 are merged.
 */
export function dominantColours(images: Pixels[], k = 5, iterations = 8): WeightedColour[] {
  const samples: Lab[] = [];
  const rgbs: Rgb[] = [];
  for (const image of images) {
    for (let i = 0; i + 2 < image.data.length; i += 3) {
      const rgb = { r: image.data[i]!, g: image.data[i + 1]!, b: image.data[i + 2]! };
      rgbs.push(rgb);
      samples.push(toLab(rgb));
    }
  }
  if (samples.length === 0) return [];
  const bins = new Map<number, { count: number; sum: Lab }>();
  rgbs.forEach((c, i) => {
    const key = ((c.r >> 6) << 4) | ((c.g >> 6) << 2) | (c.b >> 6);
    const bin = bins.get(key) ?? { count: 0, sum: { l: 0, a: 0, b: 0 } };
    bin.count++;
    bin.sum.l += samples[i]!.l;
    bin.sum.a += samples[i]!.a;
    bin.sum.b += samples[i]!.b;
    bins.set(key, bin);
  });
  let centres = [...bins.entries()]
    .sort((x, y) => y[1].count - x[1].count || x[0] - y[0])
    .slice(0, k)
    .map(([, bin]) => ({ l: bin.sum.l / bin.count, a: bin.sum.a / bin.count, b: bin.sum.b / bin.count }));
  const assignment = new Int32Array(samples.length);
  for (let round = 0; round < iterations; round++) {
    const sums = centres.map(() => ({ l: 0, a: 0, b: 0, n: 0 }));
    samples.forEach((s, i) => {
      let best = 0;
      let bestDistance = Infinity;
      centres.forEach((c, j) => {
        const d = (s.l - c.l) ** 2 + (s.a - c.a) ** 2 + (s.b - c.b) ** 2;
        if (d < bestDistance) {
          bestDistance = d;
          best = j;
        }
      });
      assignment[i] = best;
      const sum = sums[best]!;
      sum.l += s.l;
      sum.a += s.a;
      sum.b += s.b;
      sum.n++;
    });
    centres = centres.map((c, j) => {
      const s = sums[j]!;
      return s.n === 0 ? c : { l: s.l / s.n, a: s.a / s.n, b: s.b / s.n };
    });
  }
  // Each cluster is represented by the mean RGB of its members (exact colours, no Lab round trip).
  const members = centres.map(() => ({ r: 0, g: 0, b: 0, n: 0 }));
  rgbs.forEach((c, i) => {
    const m = members[assignment[i]!]!;
    m.r += c.r;
    m.g += c.g;
    m.b += c.b;
    m.n++;
  });
  let clusters = members
    .filter((m) => m.n > 0)
    .map((m) => ({
      colour: roundRgb({ r: m.r / m.n, g: m.g / m.n, b: m.b / m.n }),
      weight: m.n / rgbs.length,
    }));
  clusters.sort((x, y) => y.weight - x.weight);
  // Merge near-duplicates into the heavier one.
  const merged: WeightedColour[] = [];
  for (const cluster of clusters) {
    const twin = merged.find((m) => deltaE2000(toLab(m.colour), toLab(cluster.colour)) < 6);
    if (twin) twin.weight += cluster.weight;
    else merged.push({ ...cluster });
  }
  clusters = merged.sort((x, y) => y.weight - x.weight);
  return clusters;
}

export function meanLightness(images: Pixels[]): number {
  let total = 0;
  let n = 0;
  for (const image of images) {
    for (let i = 0; i + 2 < image.data.length; i += 3) {
      total += toLab({ r: image.data[i]!, g: image.data[i + 1]!, b: image.data[i + 2]! }).l;
      n++;
    }
  }
  return n === 0 ? 50 : total / n;
}

function meanChroma(images: Pixels[]): number {
  let total = 0;
  let n = 0;
  for (const image of images) {
    for (let i = 0; i + 2 < image.data.length; i += 3) {
      const lab = toLab({ r: image.data[i]!, g: image.data[i + 1]!, b: image.data[i + 2]! });
      total += Math.hypot(lab.a, lab.b);
      n++;
    }
  }
  return n === 0 ? 0 : total / n;
}

/**
 * Where the text is: text is the densest patch of strong edges running both ways (letters have
 * horizontal and vertical strokes; the boundary between two areas does not). The image is cut into an
 * 8 × 6 grid; cells with at least half the edge energy of the busiest one are the text block, whose
 * weighted centre and height (in rows) are returned. Flat images have no placement.
 */
export function textPlacement(image: Pixels): TextPlacement | null {
  const { data, width, height } = image;
  if (width < 8 || height < 6) return null;
  const grey = new Float32Array(width * height);
  for (let i = 0; i < width * height; i++) {
    grey[i] = 0.2126 * data[i * 3]! + 0.7152 * data[i * 3 + 1]! + 0.0722 * data[i * 3 + 2]!;
  }
  const cols = 8;
  const rows = 6;
  // Text has strong edges both across and along; a straight boundary between two areas has one kind.
  const across = new Float64Array(cols * rows);
  const along = new Float64Array(cols * rows);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const gx = Math.abs(grey[y * width + x + 1]! - grey[y * width + x - 1]!);
      const gy = Math.abs(grey[(y + 1) * width + x]! - grey[(y - 1) * width + x]!);
      const cell =
        Math.min(rows - 1, Math.floor((y / height) * rows)) * cols +
        Math.min(cols - 1, Math.floor((x / width) * cols));
      // Only crisp edges: gradients of smooth backgrounds are not text.
      if (gx >= 60) across[cell] += gx;
      if (gy >= 60) along[cell] += gy;
    }
  }
  const energy = across.map((a, i) => Math.min(a, along[i]!));
  const max = Math.max(...energy);
  if (max === 0) return null;
  let sx = 0;
  let sy = 0;
  let total = 0;
  let top = rows;
  let bottom = -1;
  energy.forEach((e, cell) => {
    if (e < max * 0.5) return;
    const col = cell % cols;
    const row = Math.floor(cell / cols);
    sx += e * ((col + 0.5) / cols);
    sy += e * ((row + 0.5) / rows);
    total += e;
    top = Math.min(top, row);
    bottom = Math.max(bottom, row);
  });
  return { x: sx / total, y: sy / total, height: (bottom - top + 1) / rows };
}

/** A reference set's profile from its images, each already shrunk (for speed) to a few thousand pixels. */
export function profileReferences(images: Pixels[]): ReferenceProfile {
  const placements = images.map(textPlacement).filter((p): p is TextPlacement => p !== null);
  const placement =
    placements.length === 0
      ? null
      : {
          x: placements.reduce((s, p) => s + p.x, 0) / placements.length,
          y: placements.reduce((s, p) => s + p.y, 0) / placements.length,
          height: placements.reduce((s, p) => s + p.height, 0) / placements.length,
        };
  return {
    colours: dominantColours(images),
    lightness: meanLightness(images),
    placement,
    vivid: meanChroma(images) > 30,
  };
}

/**
 * The palette of a reference set: its dominant colour behind the title, the next one on the far
 * side, its most colourful one as the accent; the title in the references' own text colour (the
 * heaviest of their colours that reads on the dominant ones), else white or near-black, and the
 * emphasis in the accent shaded until it reads too.
 */
export function paletteFromProfile(profile: ReferenceProfile, style: Style): PaletteSpec {
  const fallback = style.palettes[0]!;
  if (profile.colours.length === 0) return fallback;
  const byWeight = profile.colours.map((c) => c.colour);
  const base = byWeight[0]!;
  const reads = (c: Rgb, on: Rgb[]) => Math.min(...on.map((b) => contrastRatio(c, b))) >= 4.8;
  // The references' own text colour when they have one (the heaviest colour that reads on their
  // background), else white or near-black.
  const ink =
    byWeight.find((c) => reads(c, [base])) ??
    (contrastRatio(WHITE, base) >= contrastRatio(INK, base) ? WHITE : INK);
  const inkLab = toLab(ink);
  const rest = byWeight.slice(1).filter((c) => deltaE2000(toLab(c), inkLab) > 15);
  const far = rest[0] ?? shade(base, profile.lightness > 50 ? -0.2 : 0.2);
  const chroma = (c: Rgb) => {
    const lab = toLab(c);
    return Math.hypot(lab.a, lab.b);
  };
  const vivid = [...rest, base].sort((a, b) => chroma(b) - chroma(a))[0]!;
  const accent = chroma(vivid) < 20 ? parseHex(fallback.accent) : vivid;
  const backdrops = [base, mix(base, far, 0.3)];
  const emphasisInk = readableOn(accent, backdrops);
  const plateInk = contrastRatio(WHITE, accent) >= contrastRatio(INK, accent) ? WHITE : INK;
  const plate = readableOn(accent, [plateInk]);
  const light = contrastRatio(ink, WHITE) < contrastRatio(ink, INK);
  return {
    base: toHex(base),
    far: toHex(far),
    accent: toHex(accent),
    ink: toHex(ink),
    emphasisInk: toHex(emphasisInk),
    plate: toHex(plate),
    plateInk: toHex(plateInk),
    outline: toHex(light ? shade(base, -0.75) : shade(base, 0.75)),
  };
}

/**
 * How closely an output mirrors its reference set, each part 0 to 1 (see docs/gallery/README.md):
 * - palette: for each dominant reference colour, 1 − ΔE00/25 to the nearest dominant output colour
 *   (0 from 25 on), weighted by the reference colour's share; ΔE00 5 scores 0.8;
 * - brightness: 1 − |ΔL*| / 50; a difference of 10 L* scores 0.8;
 * - placement: 0.7 × position + 0.3 × scale, where position is 1 − the distance between the text
 *   centres (in canvas units) / 0.5 and scale is 1 − the relative difference of the text block
 *   heights, each floored at 0 (1 when neither has text, 0 when only one has);
 * `overall` is their mean; the renderer aims at 0.8 or more, the "80–100 % fidelity" of the spec.
 */
export interface Fidelity {
  palette: number;
  brightness: number;
  placement: number;
  overall: number;
}

export function fidelity(
  reference: Pick<ReferenceProfile, 'colours' | 'lightness' | 'placement'>,
  output: Pick<ReferenceProfile, 'colours' | 'lightness' | 'placement'>,
): Fidelity {
  const outputLabs = output.colours.map((c) => toLab(c.colour));
  let palette = 0;
  for (const { colour, weight } of reference.colours) {
    const lab = toLab(colour);
    const nearest = Math.min(...outputLabs.map((o) => deltaE2000(lab, o)));
    palette += weight * Math.max(0, 1 - nearest / 25);
  }
  const brightness = Math.max(0, 1 - Math.abs(output.lightness - reference.lightness) / 50);
  // Text in the references and none found in the output (or the reverse) is a miss.
  let placement = reference.placement || output.placement ? 0 : 1;
  if (reference.placement && output.placement) {
    const distance = Math.hypot(
      reference.placement.x - output.placement.x,
      reference.placement.y - output.placement.y,
    );
    const position = Math.max(0, 1 - distance / 0.5);
    const scale = Math.max(
      0,
      1 -
        Math.abs(reference.placement.height - output.placement.height) /
          Math.max(reference.placement.height, 0.2),
    );
    placement = 0.7 * position + 0.3 * scale;
  }
  return { palette, brightness, placement, overall: (palette + brightness + placement) / 3 };
}
