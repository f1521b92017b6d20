import sharp from 'sharp';
import {
  deltaE2000,
  parseHex,
  toHex,
  toLab,
  type BackgroundKind,
  type Design,
  type PaletteSpec,
  type Template,
  type WeightedColour,
} from '../layout/index.js';
import type { Canvas } from './canvas.js';
import { LruCache } from './lru.js';

/**
 * Backgrounds depend on the canvas, the style's kind and palette, the template and a variant, not
 * on the title's words: a finite set, drawn once (librsvg takes tens of milliseconds) and kept as
 * raw pixels that a render copies in a fraction of a millisecond.
 */
const cache = new LruCache<Promise<Buffer>>(192 * 1024 * 1024);

/** Smooth layers (gradients, glows, blurred blobs) are drawn at this fraction and enlarged. */
const SMOOTH_SCALE = 4;

export async function paintBackground(design: Design, mirror: WeightedColour[] | null): Promise<Canvas> {
  const { width, height } = design.canvas;
  const key = backgroundKey(design, mirror);
  let pixels = cache.get(key);
  if (!pixels) {
    pixels = drawBackground(design, mirror);
    cache.set(key, pixels, width * height * 3);
    pixels.catch(() => cache.delete(key));
  }
  // A private copy: the render draws into it.
  return { data: Buffer.from(await pixels), width, height };
}

function backgroundKey(design: Design, mirror: WeightedColour[] | null): string {
  const { template, palette, background, canvas } = design;
  return JSON.stringify([
    canvas.width,
    canvas.height,
    background.kind,
    background.variant,
    palette,
    template.id,
    template.titleBox,
    template.photo?.rect ?? null,
    mirror,
  ]);
}

async function drawBackground(design: Design, mirror: WeightedColour[] | null): Promise<Buffer> {
  const { width: W, height: H } = design.canvas;
  const scene = sceneOf(design, mirror ?? []);
  // Smooth layers at a quarter of the size, shapes at half: librsvg's time goes with the pixel
  // count, and neither loses anything that shows behind a title once enlarged.
  const small = {
    width: Math.max(1, Math.round(W / SMOOTH_SCALE)),
    height: Math.max(1, Math.round(H / SMOOTH_SCALE)),
  };
  const half = { width: Math.ceil(W / 2), height: Math.ceil(H / 2) };
  const crisp = crispLayer(scene);
  const [smooth, shapes] = await Promise.all([
    sharp(Buffer.from(svg(small, W, H, smoothLayer(scene))))
      .removeAlpha()
      .raw()
      .toBuffer(),
    crisp
      ? sharp(Buffer.from(svg(half, W, H, crisp)))
          .ensureAlpha()
          .raw()
          .toBuffer()
      : Promise.resolve(null),
  ]);
  const out = Buffer.alloc(W * H * 3);
  const calm = calmness(scene);
  const smoothRow = new Float32Array(small.width * 3);
  const shapeRow = new Float32Array(half.width * 4);
  const sx = sampling(W, small.width);
  const hx = sampling(W, half.width);
  for (let y = 0; y < H; y++) {
    interpolateRow(smooth, small, 3, (y + 0.5) / SMOOTH_SCALE - 0.5, smoothRow, false);
    if (shapes) interpolateRow(shapes, half, 4, (y + 0.5) / 2 - 0.5, shapeRow, true);
    for (let x = 0; x < W; x++) {
      const o = (y * W + x) * 3;
      let i = sx.index[x]! * 3;
      let w = sx.weight[x]!;
      let r = smoothRow[i]! + (smoothRow[i + 3]! - smoothRow[i]!) * w;
      let g = smoothRow[i + 1]! + (smoothRow[i + 4]! - smoothRow[i + 1]!) * w;
      let b = smoothRow[i + 2]! + (smoothRow[i + 5]! - smoothRow[i + 2]!) * w;
      if (shapes) {
        i = hx.index[x]! * 4;
        w = hx.weight[x]!;
        // Premultiplied, so transparent neighbours do not darken the shapes' edges.
        const alpha = shapeRow[i + 3]! + (shapeRow[i + 7]! - shapeRow[i + 3]!) * w;
        if (alpha > 0.5) {
          const c = calm(x, y);
          const a = (alpha / 255) * c;
          r += (shapeRow[i]! + (shapeRow[i + 4]! - shapeRow[i]!) * w) * c - r * a;
          g += (shapeRow[i + 1]! + (shapeRow[i + 5]! - shapeRow[i + 1]!) * w) * c - g * a;
          b += (shapeRow[i + 2]! + (shapeRow[i + 6]! - shapeRow[i + 2]!) * w) * c - b * a;
        }
      }
      out[o] = r + 0.5;
      out[o + 1] = g + 0.5;
      out[o + 2] = b + 0.5;
    }
  }
  return out;
}

/** For each output column, the source column to its left and the weight of the one to its right. */
function sampling(size: number, source: number): { index: Int32Array; weight: Float32Array } {
  const index = new Int32Array(size);
  const weight = new Float32Array(size);
  const scale = source / size;
  for (let x = 0; x < size; x++) {
    const f = Math.max(0, Math.min(source - 1, (x + 0.5) * scale - 0.5));
    const i = Math.min(source - 2, Math.floor(f));
    index[x] = Math.max(0, i);
    weight[x] = source > 1 ? f - Math.max(0, i) : 0;
  }
  return { index, weight };
}

/** One source row, interpolated between the two rows around `fy` (premultiplied when asked). */
function interpolateRow(
  pixels: Buffer,
  size: { width: number; height: number },
  channels: 3 | 4,
  fy: number,
  row: Float32Array,
  premultiply: boolean,
): void {
  const f = Math.max(0, Math.min(size.height - 1, fy));
  const y0 = Math.floor(f);
  const y1 = Math.min(size.height - 1, y0 + 1);
  const t = f - y0;
  const a = y0 * size.width * channels;
  const b = y1 * size.width * channels;
  for (let x = 0; x < size.width; x++) {
    const o = x * channels;
    if (premultiply) {
      const alphaTop = pixels[a + o + 3]!;
      const alphaBottom = pixels[b + o + 3]!;
      for (let c = 0; c < 3; c++) {
        row[o + c] = pixels[a + o + c]! * alphaTop * (1 - t) + pixels[b + o + c]! * alphaBottom * t;
      }
      row[o + 3] = alphaTop * (1 - t) + alphaBottom * t;
      for (let c = 0; c < 3; c++) row[o + c] = row[o + c]! / 255;
    } else {
      for (let c = 0; c < channels; c++) row[o + c] = pixels[a + o + c]! * (1 - t) + pixels[b + o + c]! * t;
    }
  }
}

function svg(size: { width: number; height: number }, W: number, H: number, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none">${body}</svg>`;
}

interface Scene {
  W: number;
  H: number;
  kind: BackgroundKind;
  palette: PaletteSpec;
  template: Template;
  light: boolean;
  random: () => number;
  /** A reference set's colours by share, for the mirrored scene. */
  mirror: WeightedColour[];
  /** Centre of the title box and of the decoration. */
  title: { x: number; y: number };
  focus: { x: number; y: number };
  unit: number;
}

function sceneOf(design: Design, mirror: WeightedColour[]): Scene {
  const { width: W, height: H } = design.canvas;
  const box = design.template.titleBox;
  return {
    W,
    H,
    kind: design.background.kind,
    palette: design.palette,
    template: design.template,
    light: design.style.light,
    random: random(design.background.variant * 7919 + 17),
    mirror,
    title: { x: box.x + box.width / 2, y: box.y + box.height / 2 },
    focus: design.template.focus,
    unit: Math.min(W, H),
  };
}

/** mulberry32: the same seed always gives the same shapes. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const n = (v: number) => Math.round(v * 10) / 10;

/** The base: a gradient from the title (base colour) to the focus (far colour), a glow, a vignette. */
function smoothLayer(s: Scene): string {
  const { W, H, palette, title, focus, unit } = s;
  const glowRadius = unit * (s.kind === 'mesh' ? 0.55 : 0.62);
  const parts: string[] = [
    `<defs>
      <linearGradient id="base" gradientUnits="userSpaceOnUse" x1="${n(title.x)}" y1="${n(title.y)}" x2="${n(focus.x)}" y2="${n(focus.y)}">
        <stop offset="0" stop-color="${palette.base}"/>
        <stop offset="0.5" stop-color="${palette.base}"/>
        <stop offset="1" stop-color="${palette.far}"/>
      </linearGradient>
      <radialGradient id="glow" gradientUnits="userSpaceOnUse" cx="${n(focus.x)}" cy="${n(focus.y)}" r="${n(glowRadius)}">
        <stop offset="0" stop-color="${palette.far}" stop-opacity="0.9"/>
        <stop offset="0.45" stop-color="${palette.far}" stop-opacity="0.35"/>
        <stop offset="1" stop-color="${palette.far}" stop-opacity="0"/>
      </radialGradient>
      <radialGradient id="vignette" cx="0.5" cy="0.5" r="0.78">
        <stop offset="0.6" stop-color="#000" stop-opacity="0"/>
        <stop offset="1" stop-color="#000" stop-opacity="${s.light ? 0.1 : 0.45}"/>
      </radialGradient>
    </defs>
    <rect width="${W}" height="${H}" fill="url(#base)"/>
    ${s.kind === 'mirror' ? '' : `<rect width="${W}" height="${H}" fill="url(#glow)"/>`}`,
  ];
  parts.push(smoothDecoration(s));
  parts.push(`<rect width="${W}" height="${H}" fill="url(#vignette)"/>`);
  return parts.join('');
}

/**
 * A reference set's look as colour blocks over its dominant colour (the base gradient): each other
 * colour a slanted band on the far side with about its share of the area (together at most 45 % of
 * the width, or of the height when the text is centred). The output's colours then come in roughly
 * the references' proportions.
 */
function mirrorBands(s: Scene): string {
  const { W, H, template } = s;
  // The heaviest colour is the base, already painted by the gradient; the title's own colour is the
  // references' text, which the title brings.
  const ink = toLab(parseHex(s.palette.ink));
  const others = s.mirror.slice(1).filter((c) => deltaE2000(toLab(c.colour), ink) > 15);
  const total = others.reduce((sum, c) => sum + c.weight, 0);
  const box = template.titleBox;
  const parts: string[] = [];
  const horizontal = template.align === 'centre';
  const span = horizontal ? H : W;
  const slant = (horizontal ? W : H) * 0.18;
  // The bands keep to the space beside (or below) the title box.
  const free = horizontal
    ? template.verticalAlign === 'bottom'
      ? box.y
      : H - (box.y + box.height)
    : template.align === 'right'
      ? box.x
      : W - (box.x + box.width);
  const share = Math.min(total, 0.45, Math.max(0.1, (free - slant / 2) / span));
  // From the far edge inwards, heaviest first: each band's width is its share of the span.
  let edge = 0;
  for (const { colour, weight } of others) {
    const width = total > 0 ? (weight / total) * share * span : 0;
    const from = edge;
    const to = edge + width;
    edge = to;
    const at = (d: number) => {
      if (horizontal) return template.verticalAlign === 'bottom' ? d : H - d;
      return template.align === 'right' ? d : W - d;
    };
    const points = horizontal
      ? [
          [0, at(from) - slant / 2],
          [W, at(from) + slant / 2],
          [W, at(to) + slant / 2],
          [0, at(to) - slant / 2],
        ]
      : [
          [at(from) + slant / 2, 0],
          [at(from) - slant / 2, H],
          [at(to) - slant / 2, H],
          [at(to) + slant / 2, 0],
        ];
    // The outermost band runs off the canvas edge so no sliver of the base shows beyond it.
    if (from === 0) {
      if (horizontal) {
        const off = template.verticalAlign === 'bottom' ? -slant : H + slant;
        points[0]![1] = off;
        points[1]![1] = off;
      } else {
        const off = template.align === 'right' ? -slant : W + slant;
        points[0]![0] = off;
        points[1]![0] = off;
      }
    }
    parts.push(
      `<polygon points="${points.map(([x, y]) => `${n(x!)},${n(y!)}`).join(' ')}" fill="${toHex(colour)}"/>`,
    );
  }
  return parts.join('');
}

/** Soft decoration drawn with the smooth layer: blobs, bokeh, the sun's halo. */
function smoothDecoration(s: Scene): string {
  const { palette, focus, unit, random: rnd, W, H } = s;
  if (s.kind === 'mesh') {
    const blobs = [
      { x: focus.x, y: focus.y, r: unit * 0.55, c: palette.far },
      {
        x: focus.x + (rnd() - 0.5) * unit * 0.6,
        y: H * (0.1 + rnd() * 0.2),
        r: unit * 0.4,
        c: palette.accent,
      },
      { x: W * (rnd() < 0.5 ? 0.05 : 0.95), y: H * (0.85 + rnd() * 0.1), r: unit * 0.35, c: palette.far },
    ];
    return blobs
      .map(
        (
          b,
          i,
        ) => `<radialGradient id="blob${i}" gradientUnits="userSpaceOnUse" cx="${n(b.x)}" cy="${n(b.y)}" r="${n(b.r)}">
          <stop offset="0" stop-color="${b.c}" stop-opacity="0.95"/><stop offset="1" stop-color="${b.c}" stop-opacity="0"/></radialGradient>
          <circle cx="${n(b.x)}" cy="${n(b.y)}" r="${n(b.r)}" fill="url(#blob${i})"/>`,
      )
      .join('');
  }
  if (s.kind === 'bokeh') {
    const dots: string[] = [];
    for (let i = 0; i < 14; i++) {
      const x = focus.x + (rnd() - 0.5) * W * 0.7;
      const y = H * rnd();
      const r = unit * (0.04 + rnd() * 0.12);
      const colour = [palette.accent, palette.far, '#ffffff'][i % 3]!;
      dots.push(
        `<circle cx="${n(x)}" cy="${n(y)}" r="${n(r)}" fill="${colour}" fill-opacity="${n(0.25 + rnd() * 0.35)}"/>`,
      );
    }
    return `<g>${dots.join('')}</g>`;
  }
  if (s.kind === 'horizon') {
    return `<radialGradient id="halo" gradientUnits="userSpaceOnUse" cx="${n(focus.x)}" cy="${n(H * 0.58)}" r="${n(unit * 0.5)}">
      <stop offset="0" stop-color="${palette.accent}" stop-opacity="0.85"/><stop offset="1" stop-color="${palette.accent}" stop-opacity="0"/></radialGradient>
      <rect width="${W}" height="${H}" fill="url(#halo)"/>`;
  }
  return '';
}

/** Crisp shapes over the smooth layer. */
function crispLayer(s: Scene): string | null {
  return crispDecoration(s) || null;
}

/**
 * How much of the shapes shows at a pixel: a fifth over the title's box, rising to all of it over a
 * wide soft edge, so decoration recedes where the text may go and the text sits on calm ground.
 */
function calmness(s: Scene): (x: number, y: number) => number {
  const box = s.template.titleBox;
  const feather = s.unit * 0.16;
  const radius = s.unit * 0.08;
  const keep = 0.2;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const hx = box.width / 2 - radius;
  const hy = box.height / 2 - radius;
  return (x, y) => {
    const ax = Math.abs(x + 0.5 - cx) - hx;
    const ay = Math.abs(y + 0.5 - cy) - hy;
    const dx = ax > 0 ? ax : 0;
    const dy = ay > 0 ? ay : 0;
    const outside = (dx === 0 ? dy : dy === 0 ? dx : Math.sqrt(dx * dx + dy * dy)) - radius;
    if (outside >= feather) return 1;
    const t = outside <= 0 ? 0 : outside / feather;
    return keep + (1 - keep) * t * t * (3 - 2 * t);
  };
}

function crispDecoration(s: Scene): string {
  switch (s.kind) {
    case 'grid':
      return grid(s);
    case 'chart':
      return chart(s);
    case 'paper':
      return paper(s);
    case 'speed':
      return speed(s);
    case 'clinic':
      return clinic(s);
    case 'burst':
      return burst(s, 0.1, s.palette.accent);
    case 'pop':
      return burst(s, 0.22, '#ffffff') + halftone(s);
    case 'horizon':
      return horizon(s);
    case 'neon':
      return neon(s);
    case 'bulletin':
      return bulletin(s);
    case 'mesh':
      return rings(s);
    case 'mirror':
      return mirrorBands(s);
    case 'bokeh':
      return '';
  }
}

/** A perspective grid receding to a horizon, and a glowing sun above it at the focus. */
function grid(s: Scene): string {
  const { W, H, palette, focus, unit } = s;
  const horizon = H * 0.6;
  const lines: string[] = [];
  for (let i = 1; i <= 9; i++) {
    const y = horizon + (H - horizon) * (i / 9) ** 1.9;
    lines.push(`M0 ${n(y)}H${W}`);
  }
  for (let i = -14; i <= 14; i++) {
    lines.push(`M${n(focus.x)} ${n(horizon)}L${n(focus.x + i * unit * 0.22)} ${n(H + 2)}`);
  }
  const nodes: string[] = [];
  for (let i = 0; i < 9; i++) {
    const x = focus.x + (s.random() - 0.5) * unit * 0.9;
    const y = H * (0.12 + s.random() * 0.4);
    nodes.push(`<circle cx="${n(x)}" cy="${n(y)}" r="${n(unit * 0.006)}" fill="${palette.accent}"/>`);
    nodes.push(
      `<path d="M${n(x)} ${n(y)}h${n(unit * (0.05 + s.random() * 0.08))}" stroke="${palette.accent}" stroke-opacity="0.5" stroke-width="${n(unit * 0.003)}"/>`,
    );
  }
  return `<path d="${lines.join('')}" stroke="${palette.accent}" stroke-opacity="0.32" stroke-width="${n(unit * 0.0035)}" fill="none"/>
    <circle cx="${n(focus.x)}" cy="${n(horizon - unit * 0.02)}" r="${n(unit * 0.18)}" fill="none" stroke="${palette.accent}" stroke-opacity="0.45" stroke-width="${n(unit * 0.006)}"/>
    ${nodes.join('')}`;
}

/** A rising area chart with an arrow, over faint gridlines, with candlesticks behind. */
function chart(s: Scene): string {
  const { W, H, palette, unit, random: rnd, focus } = s;
  const left = Math.max(0, focus.x - W * 0.45);
  const right = Math.min(W, focus.x + W * 0.45);
  const points: Array<[number, number]> = [];
  const steps = 9;
  for (let i = 0; i <= steps; i++) {
    const t = i / steps;
    const trend = H * (0.82 - 0.62 * t);
    points.push([left + (right - left) * t, trend + (i % 2 === 0 ? 1 : -1) * H * (0.03 + rnd() * 0.05)]);
  }
  const line = points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${n(x)} ${n(y)}`).join('');
  const [ex, ey] = points.at(-1)!;
  const [px, py] = points.at(-2)!;
  const angle = Math.atan2(ey - py, ex - px);
  const head = unit * 0.06;
  const arrow = [
    [ex + Math.cos(angle) * head, ey + Math.sin(angle) * head],
    [ex + Math.cos(angle + 2.5) * head, ey + Math.sin(angle + 2.5) * head],
    [ex + Math.cos(angle - 2.5) * head, ey + Math.sin(angle - 2.5) * head],
  ]
    .map(([x, y]) => `${n(x!)},${n(y!)}`)
    .join(' ');
  const gridLines = Array.from({ length: 6 }, (_, i) => `M0 ${n((H * (i + 1)) / 7)}H${W}`).join('');
  const candles: string[] = [];
  for (let i = 0; i < 12; i++) {
    const x = left + ((right - left) * (i + 0.5)) / 12;
    const h = H * (0.06 + rnd() * 0.14);
    const y = H * (0.75 - (0.5 * i) / 12) - h / 2 + (rnd() - 0.5) * H * 0.08;
    candles.push(
      `<rect x="${n(x - unit * 0.012)}" y="${n(y)}" width="${n(unit * 0.024)}" height="${n(h)}" rx="${n(unit * 0.004)}"/>`,
    );
  }
  return `<path d="${gridLines}" stroke="#ffffff" stroke-opacity="0.06" stroke-width="${n(unit * 0.003)}"/>
    <g fill="${palette.far}" fill-opacity="0.45">${candles.join('')}</g>
    <path d="${line}L${n(right)} ${H}L${n(left)} ${H}Z" fill="${palette.accent}" fill-opacity="0.12"/>
    <path d="${line}" fill="none" stroke="${palette.accent}" stroke-width="${n(unit * 0.014)}" stroke-linejoin="round" stroke-linecap="round"/>
    <polygon points="${arrow}" fill="${palette.accent}"/>`;
}

/** Dotted exercise-book paper, a big colour blob at the focus and a few doodles. */
function paper(s: Scene): string {
  const { W, H, palette, unit, focus, random: rnd } = s;
  const step = unit * 0.045;
  const dots: string[] = [];
  const r = unit * 0.0035;
  for (let y = step / 2; y < H; y += step) {
    for (let x = step / 2; x < W; x += step)
      dots.push(
        `M${n(x - r)} ${n(y)}a${n(r)} ${n(r)} 0 1 0 ${n(2 * r)} 0a${n(r)} ${n(r)} 0 1 0 ${n(-2 * r)} 0`,
      );
  }
  const blob = unit * (0.36 + rnd() * 0.08);
  const star = (cx: number, cy: number, size: number) => {
    const pts: string[] = [];
    for (let i = 0; i < 10; i++) {
      const a = (i / 10) * Math.PI * 2 - Math.PI / 2;
      const rr = i % 2 === 0 ? size : size * 0.45;
      pts.push(`${n(cx + Math.cos(a) * rr)},${n(cy + Math.sin(a) * rr)}`);
    }
    return `<polygon points="${pts.join(' ')}" fill="${palette.plate}" stroke="${palette.ink}" stroke-width="${n(unit * 0.006)}" stroke-linejoin="round"/>`;
  };
  return `<path d="${dots.join('')}" fill="${palette.ink}" fill-opacity="0.16"/>
    <circle cx="${n(focus.x)}" cy="${n(focus.y)}" r="${n(blob)}" fill="${palette.accent}"/>
    <circle cx="${n(focus.x + blob * 0.55)}" cy="${n(focus.y - blob * 0.7)}" r="${n(blob * 0.28)}" fill="${palette.plate}"/>
    <path d="M${n(focus.x - blob * 0.9)} ${n(focus.y + blob * 1.05)}q${n(blob * 0.2)} ${n(-blob * 0.2)} ${n(blob * 0.4)} 0t${n(blob * 0.4)} 0t${n(blob * 0.4)} 0" fill="none" stroke="${palette.ink}" stroke-width="${n(unit * 0.012)}" stroke-linecap="round"/>
    ${star(focus.x - blob * 0.95, focus.y - blob * 0.75, unit * 0.05)}`;
}

/** Slanted speed bands racing across the focus side. */
function speed(s: Scene): string {
  const { H, palette, unit, focus, random: rnd } = s;
  const bands: string[] = [];
  for (let i = 0; i < 7; i++) {
    const x = focus.x + (i - 3) * unit * 0.16 + (rnd() - 0.5) * unit * 0.06;
    const w = unit * (0.02 + rnd() * 0.07);
    const slant = H * 0.45;
    const colour = i % 3 === 0 ? palette.accent : palette.far;
    bands.push(
      `<path d="M${n(x + slant)} 0h${n(w)}L${n(x + w - slant)} ${H}h${n(-w)}Z" fill="${colour}" fill-opacity="${n(0.35 + rnd() * 0.45)}"/>`,
    );
  }
  return bands.join('');
}

/** Soft rings, plus signs and a heartbeat line. */
function clinic(s: Scene): string {
  const { W, H, palette, unit, focus, random: rnd } = s;
  const plus = (x: number, y: number, size: number, opacity: number) =>
    `<path d="M${n(x - size * 0.18)} ${n(y - size / 2)}h${n(size * 0.36)}v${n(size * 0.32)}h${n(size * 0.32)}v${n(size * 0.36)}h${n(-size * 0.32)}v${n(size * 0.32)}h${n(-size * 0.36)}v${n(-size * 0.32)}h${n(-size * 0.32)}v${n(-size * 0.36)}h${n(size * 0.32)}Z" fill="${palette.accent}" fill-opacity="${opacity}"/>`;
  const y = H * 0.8;
  const beat = `M0 ${n(y)}H${n(focus.x - unit * 0.3)}l${n(unit * 0.05)} ${n(-unit * 0.12)}l${n(unit * 0.06)} ${n(unit * 0.22)}l${n(unit * 0.05)} ${n(-unit * 0.1)}H${W}`;
  return `<circle cx="${n(focus.x)}" cy="${n(focus.y)}" r="${n(unit * 0.34)}" fill="${palette.far}" fill-opacity="0.55"/>
    <circle cx="${n(focus.x)}" cy="${n(focus.y)}" r="${n(unit * 0.44)}" fill="none" stroke="${palette.accent}" stroke-opacity="0.35" stroke-width="${n(unit * 0.008)}"/>
    ${plus(focus.x, focus.y, unit * 0.26, 0.9)}
    ${plus(focus.x + unit * (0.3 + rnd() * 0.1), focus.y - unit * 0.32, unit * 0.07, 0.6)}
    ${plus(focus.x - unit * 0.38, focus.y + unit * 0.3, unit * 0.05, 0.5)}
    <path d="${beat}" fill="none" stroke="${palette.accent}" stroke-opacity="0.55" stroke-width="${n(unit * 0.01)}" stroke-linejoin="round"/>`;
}

/** Rays bursting from the focus. */
function burst(s: Scene, opacity: number, colour: string): string {
  const { W, H, focus } = s;
  const rays = 18;
  const reach = Math.hypot(W, H);
  const wedges: string[] = [];
  const turn = s.random() * Math.PI;
  for (let i = 0; i < rays; i++) {
    const a0 = turn + (i / rays) * Math.PI * 2;
    const a1 = a0 + (Math.PI / rays) * 0.9;
    wedges.push(
      `M${n(focus.x)} ${n(focus.y)}L${n(focus.x + Math.cos(a0) * reach)} ${n(focus.y + Math.sin(a0) * reach)}L${n(focus.x + Math.cos(a1) * reach)} ${n(focus.y + Math.sin(a1) * reach)}Z`,
    );
  }
  return `<path d="${wedges.join('')}" fill="${colour}" fill-opacity="${opacity}"/>`;
}

/** Comic-book halftone dots gathered in the corners. */
function halftone(s: Scene): string {
  const { W, H, palette, unit } = s;
  const step = unit * 0.04;
  const dots: string[] = [];
  for (let y = step / 2; y < H; y += step) {
    for (let x = step / 2; x < W; x += step) {
      const d = Math.min(Math.hypot(x, y), Math.hypot(W - x, H - y)) / (unit * 0.55);
      if (d >= 1) continue;
      const r = step * 0.42 * (1 - d);
      dots.push(
        `M${n(x - r)} ${n(y)}a${n(r)} ${n(r)} 0 1 0 ${n(2 * r)} 0a${n(r)} ${n(r)} 0 1 0 ${n(-2 * r)} 0`,
      );
    }
  }
  return `<path d="${dots.join('')}" fill="${palette.far}" fill-opacity="0.55"/>`;
}

/** A sun over layered mountain ridges. */
function horizon(s: Scene): string {
  const { W, H, palette, unit, focus, random: rnd } = s;
  const ridge = (base: number, amplitude: number, colour: string, opacity: number) => {
    const pts: string[] = [`M0 ${H}`];
    const count = 7;
    for (let i = 0; i <= count; i++) {
      const x = (W * i) / count;
      const y = base - (i % 2 === 1 ? amplitude * (0.6 + rnd() * 0.6) : amplitude * rnd() * 0.3);
      pts.push(`L${n(x)} ${n(y)}`);
    }
    pts.push(`L${W} ${H}Z`);
    return `<path d="${pts.join('')}" fill="${colour}" fill-opacity="${opacity}"/>`;
  };
  return `<circle cx="${n(focus.x)}" cy="${n(H * 0.56)}" r="${n(unit * 0.17)}" fill="${palette.accent}"/>
    ${ridge(H * 0.8, H * 0.22, palette.far, 0.55)}
    ${ridge(H * 0.9, H * 0.16, palette.base, 0.9)}`;
}

/** Neon shards and streaks. */
function neon(s: Scene): string {
  const { H, palette, unit, focus, random: rnd } = s;
  const shards: string[] = [];
  for (let i = 0; i < 6; i++) {
    const x = focus.x + (rnd() - 0.5) * unit * 1.1;
    const y = focus.y + (rnd() - 0.5) * H * 0.9;
    const size = unit * (0.08 + rnd() * 0.16);
    const a = rnd() * Math.PI;
    const pts = [0, 2.1, 4.0].map(
      (o) => `${n(x + Math.cos(a + o) * size)},${n(y + Math.sin(a + o) * size * 0.7)}`,
    );
    const colour = i % 2 === 0 ? palette.accent : palette.far;
    shards.push(
      `<polygon points="${pts.join(' ')}" fill="${colour}" fill-opacity="${n(0.25 + rnd() * 0.3)}" stroke="${colour}" stroke-width="${n(unit * 0.004)}"/>`,
    );
  }
  const streaks: string[] = [];
  for (let i = 0; i < 4; i++) {
    const x = focus.x + (i - 1.5) * unit * 0.2;
    streaks.push(`M${n(x + H * 0.3)} 0L${n(x - H * 0.3)} ${H}`);
  }
  return `${shards.join('')}<path d="${streaks.join('')}" stroke="${palette.accent}" stroke-opacity="0.55" stroke-width="${n(unit * 0.006)}"/>`;
}

/** A bold band of the accent and broadcast stripes. */
function bulletin(s: Scene): string {
  const { W, H, palette, unit, template } = s;
  const box = template.titleBox;
  // The band leans left by 0.44 unit from top to bottom: it starts clear of the title box.
  const x =
    template.align === 'right'
      ? Math.min(box.x - unit * 0.3, unit * 0.12)
      : Math.max(box.x + box.width + unit * 0.46, W * 0.9);
  const band = `<path d="M${n(x - unit * 0.1)} 0h${n(unit * 0.32)}L${n(x - unit * 0.12)} ${H}h${n(-unit * 0.32)}Z" fill="${palette.accent}" fill-opacity="0.9"/>`;
  const stripes = Array.from(
    { length: 5 },
    (_, i) =>
      `M${n(x + unit * (0.3 + i * 0.07))} 0h${n(unit * 0.02)}L${n(x + unit * (0.3 + i * 0.07) - unit * 0.44)} ${H}h${n(-unit * 0.02)}Z`,
  ).join('');
  const ticker = `<rect x="0" y="${n(H * 0.93)}" width="${W}" height="${n(H * 0.07)}" fill="${palette.accent}" fill-opacity="0.85"/>`;
  return `${band}<path d="${stripes}" fill="#ffffff" fill-opacity="0.12"/>${ticker}`;
}

/** Thin geometric outlines around the focus: a ring, a triangle, a squiggle. */
function rings(s: Scene): string {
  const { palette, unit, focus, random: rnd } = s;
  const r = unit * (0.22 + rnd() * 0.06);
  const tx = focus.x - unit * 0.28;
  const ty = focus.y + unit * 0.25;
  const t = unit * 0.09;
  return `<circle cx="${n(focus.x)}" cy="${n(focus.y)}" r="${n(r)}" fill="none" stroke="#ffffff" stroke-opacity="0.7" stroke-width="${n(unit * 0.006)}"/>
    <polygon points="${n(tx)},${n(ty - t)} ${n(tx + t)},${n(ty + t * 0.8)} ${n(tx - t)},${n(ty + t * 0.8)}" fill="none" stroke="${palette.accent}" stroke-width="${n(unit * 0.008)}" stroke-linejoin="round"/>
    <circle cx="${n(focus.x + r * 0.9)}" cy="${n(focus.y - r * 0.6)}" r="${n(unit * 0.03)}" fill="${palette.accent}"/>`;
}
