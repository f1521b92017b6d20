import { fragmentsOf, visualOrder, type Fragment } from './bidi.js';
import type { TitlePiece } from './line-breaks.js';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Align = 'left' | 'centre' | 'right';
export type VerticalAlign = 'top' | 'middle' | 'bottom';

/**
 * What shaping a piece of text yields, in em (at a font size of 1): the pen advance, and the inked
 * area relative to the pen origin on the baseline (`inkTop` above it, `inkBottom` below it).
 */
export interface PieceMetrics {
  advance: number;
  inkLeft: number;
  inkRight: number;
  inkTop: number;
  inkBottom: number;
}

/**
 * Measures text of one bidi direction as it will be drawn; `emphasis` pieces may use another face.
 * Synchronous and cheap.
 */
export type MeasurePiece = (text: string, emphasis: boolean, rtl: boolean) => PieceMetrics;

/**
 * Extra room, in em, around pieces drawn on a plate: the emphasis highlight, or a bar under every
 * line. The plate is part of the title and must fit the box too.
 */
export interface Plate {
  x: number;
  y: number;
}

export interface TitleLayoutOptions {
  pieces: TitlePiece[];
  /** Indices of the pieces to emphasise. */
  emphasis: ReadonlySet<number>;
  measure: MeasurePiece;
  /** Where the title must stay, in canvas pixels. */
  box: Rect;
  align: Align;
  verticalAlign: VerticalAlign;
  /** The title's bidi embedding levels, one per UTF-16 unit: pieces read theirs at their offsets. */
  levels: ArrayLike<number>;
  /**
   * `block`: every line the same size. `stack`: every line scaled to the full width (within
   * `stackRange` of the smallest), the poster look.
   */
  mode: 'block' | 'stack';
  maxFontSize: number;
  /** Below this size a title may use up to `longTitleMaxLines` lines. */
  minFontSize: number;
  maxLines: number;
  longTitleMaxLines: number;
  /** Minimum baseline-to-baseline distance in em. */
  leading: number;
  /** Minimum clear space between the ink of two lines, in em. */
  lineGap: number;
  /** Largest ratio between line sizes in `stack` mode. */
  stackRange?: number;
  /** Room for the emphasis highlight plate, when the style draws one. */
  emphasisPlate?: Plate | null;
  /** Room for a plate behind every line, when the style draws one. */
  linePlate?: Plate | null;
  /** Room kept on every side of the ink for an outline, in em. */
  outline?: number;
}

/** One stretch of a piece at one bidi level, placed: a piece whose level changes inside is several. */
export interface PlacedPiece {
  /** Index in the (possibly split) piece list of the layout. */
  index: number;
  text: string;
  /** UTF-16 offset of the text in the title. */
  start: number;
  /** Shaped right to left (an odd embedding level). */
  rtl: boolean;
  emphasis: boolean;
  line: number;
  /** Pen origin on the baseline, canvas pixels. */
  x: number;
  baseline: number;
  size: number;
  metrics: PieceMetrics;
}

export interface PlacedLine {
  size: number;
  baseline: number;
  /** Visual left to right. */
  pieces: PlacedPiece[];
  /** The ink of the line, outline included, in canvas pixels. */
  ink: Rect;
  /** The line's plate, when the style draws one behind every line. */
  plate: Rect | null;
}

export interface TitleLayout {
  lines: PlacedLine[];
  pieces: PlacedPiece[];
  /** Highlight plates behind runs of emphasised pieces. */
  emphasisPlates: Rect[];
  /** Everything the title draws (ink, outline, plates), in canvas pixels: inside the box. */
  bounds: Rect;
  /** The smallest line size in pixels. */
  minSize: number;
  /** Whether the pieces had to be split inside a word to fit. */
  splitWords: boolean;
}

interface MeasuredFragment extends Fragment {
  metrics: PieceMetrics;
}

interface Measured {
  piece: TitlePiece;
  emphasis: boolean;
  /** The piece's stretches at one bidi level each, in logical order, each measured in its direction. */
  fragments: MeasuredFragment[];
  advance: number;
}

interface LineShape {
  /** Visual order of the line's fragments: piece index and fragment index within the piece. */
  order: Array<{ index: number; fragment: number }>;
  /** Pen offset of each piece (same order as `order`), in em. */
  offsets: number[];
  /** Extents in em relative to the pen origin of the line (first visual piece) and baseline. */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

const EPSILON = 1e-9;

/**
 * Lays a title out in its box. For each line count up to the maximum it finds the most balanced
 * breaking (the widest line as narrow as possible, then the most even), sizes the lines so the
 * exact shaped ink fits both the width and the height, and keeps the line count whose smallest line
 * is largest (fewer lines on a near tie). Pieces too wide for a line even at the minimum size are cut
 * between graphemes. Everything drawn, plates and outlines included, stays inside the box.
 */
export function layoutTitle(options: TitleLayoutOptions): TitleLayout {
  const { box, minFontSize } = options;
  const outline = options.outline ?? 0;
  const space = options.measure(' ', false, false).advance;
  const { measured, splitWords } = measurePieces(options, box.width / minFontSize);
  if (measured.length === 0) throw new Error('a title needs at least one visible character');
  const widths = measured.map((m) => m.advance);

  type Candidate = { starts: number[]; sizes: number[]; shapes: LineShape[]; score: number };
  let best: Candidate | null = null;
  const consider = (lines: number) => {
    if (lines > measured.length) return;
    const starts = balancedBreaking(widths, measured, space, lines);
    const shapes = starts.map((start, i) =>
      lineShape(measured, space, start, starts[i + 1] ?? measured.length, options, outline),
    );
    const sizes = sizeLines(shapes, options);
    const score = Math.min(...sizes);
    // A further line must buy a clearly larger size to be worth it.
    if (!best || score > best.score * 1.04) best = { starts, sizes, shapes, score };
  };
  for (let lines = 1; lines <= options.maxLines; lines++) consider(lines);
  if (best!.score < minFontSize) {
    for (let lines = options.maxLines + 1; lines <= options.longTitleMaxLines; lines++) consider(lines);
  }
  const chosen = best!;
  return place(chosen.shapes, chosen.sizes, measured, options, splitWords);
}

function measurePieces(
  options: TitleLayoutOptions,
  maxEm: number,
): { measured: Measured[]; splitWords: boolean } {
  const measured: Measured[] = [];
  let splitWords = false;
  const measure = (text: string, start: number, emphasis: boolean) => {
    const fragments = fragmentsOf(text, start, options.levels).map((f) => ({
      ...f,
      metrics: options.measure(f.text, emphasis, f.level % 2 === 1),
    }));
    return { fragments, advance: fragments.reduce((sum, f) => sum + f.metrics.advance, 0) };
  };
  options.pieces.forEach((piece, index) => {
    const emphasis = options.emphasis.has(index);
    const whole = measure(piece.text, piece.start, emphasis);
    if (extent(whole.fragments, whole.advance) <= maxEm) {
      measured.push({ piece, emphasis, ...whole });
      return;
    }
    splitWords = true;
    const parts = splitToWidth(piece, maxEm, (text, start) => {
      const part = measure(text, start, emphasis);
      return extent(part.fragments, part.advance);
    });
    parts.forEach((part, i) => {
      measured.push({
        piece: { ...part, spaceBefore: i === 0 && piece.spaceBefore },
        emphasis,
        ...measure(part.text, part.start, emphasis),
      });
    });
  });
  return { measured, splitWords };
}

/** The width a piece's ink needs, in em: its advance, grown by the overhang at either end. */
function extent(fragments: MeasuredFragment[], advance: number): number {
  const first = fragments[0]?.metrics;
  const last = fragments.at(-1)?.metrics;
  if (!first || !last) return 0;
  return advance - Math.min(0, first.inkLeft) + Math.max(0, last.inkRight - last.advance);
}

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/** Cuts a piece into the fewest runs of whole graphemes whose measured width each fits `maxEm`. */
function splitToWidth(
  piece: TitlePiece,
  maxEm: number,
  width: (text: string, start: number) => number,
): Array<{ text: string; start: number }> {
  const chars = Array.from(graphemes.segment(piece.text));
  const run = (from: number, to: number) => ({
    text: chars
      .slice(from, to)
      .map((c) => c.segment)
      .join(''),
    start: piece.start + chars[from]!.index,
  });
  const runs: Array<{ text: string; start: number }> = [];
  let start = 0;
  while (start < chars.length) {
    // The longest prefix that fits, by bisection (widths grow with length); at least one grapheme.
    let lo = start + 1;
    let hi = chars.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const candidate = run(start, mid);
      if (width(candidate.text, candidate.start) <= maxEm) lo = mid;
      else hi = mid - 1;
    }
    runs.push(run(start, lo));
    start = lo;
  }
  return runs;
}

function advanceWidth(widths: number[], measured: Measured[], space: number, start: number, end: number) {
  let total = 0;
  for (let i = start; i < end; i++)
    total += widths[i]! + (i > start && measured[i]!.piece.spaceBefore ? space : 0);
  return total;
}

/**
 * Cuts the pieces into exactly `lines` lines minimising the widest line; among equally wide
 * solutions the most even one (smallest sum of squared widths) wins. O(lines · n²).
 */
function balancedBreaking(widths: number[], measured: Measured[], space: number, lines: number): number[] {
  const n = measured.length;
  type Cost = { widest: number; squares: number; previous: number };
  const cost: (Cost | undefined)[][] = Array.from(
    { length: lines + 1 },
    () => new Array<Cost | undefined>(n + 1),
  );
  cost[0]![0] = { widest: 0, squares: 0, previous: -1 };
  for (let k = 1; k <= lines; k++) {
    for (let j = k; j <= n - (lines - k); j++) {
      let bestCost: Cost | undefined;
      for (let i = k - 1; i < j; i++) {
        const before = cost[k - 1]![i];
        if (!before) continue;
        const w = advanceWidth(widths, measured, space, i, j);
        const candidate = {
          widest: Math.max(before.widest, w),
          squares: before.squares + w * w,
          previous: i,
        };
        if (
          !bestCost ||
          candidate.widest < bestCost.widest - EPSILON ||
          (Math.abs(candidate.widest - bestCost.widest) <= EPSILON && candidate.squares < bestCost.squares)
        ) {
          bestCost = candidate;
        }
      }
      cost[k]![j] = bestCost;
    }
  }
  const starts: number[] = [];
  let j = n;
  for (let k = lines; k > 0; k--) {
    const entry = cost[k]![j]!;
    starts.unshift(entry.previous);
    j = entry.previous;
  }
  return starts;
}

/**
 * A line's fragments in visual order with their pen offsets and exact extents, plates included. The
 * order is rule L2 of the bidi algorithm over the line's fragments and the spaces between pieces,
 * each at its embedding level.
 */
function lineShape(
  measured: Measured[],
  space: number,
  start: number,
  end: number,
  options: TitleLayoutOptions,
  outline: number,
): LineShape {
  const units: Array<{ level: number; index: number; fragment: number } | { level: number; space: true }> =
    [];
  for (let index = start; index < end; index++) {
    const { piece, fragments } = measured[index]!;
    if (index > start && piece.spaceBefore)
      units.push({ level: options.levels[piece.start - 1] ?? 0, space: true });
    fragments.forEach((f, fragment) => units.push({ level: f.level, index, fragment }));
  }
  const order: LineShape['order'] = [];
  const offsets: number[] = [];
  let pen = 0;
  let left = Infinity;
  let right = -Infinity;
  let top = 0;
  let bottom = 0;
  const emphasisPlate = options.emphasisPlate;
  for (const position of visualOrder(units.map((u) => u.level))) {
    const unit = units[position]!;
    if ('space' in unit) {
      pen += space;
      continue;
    }
    const m = measured[unit.index]!;
    const { metrics } = m.fragments[unit.fragment]!;
    order.push({ index: unit.index, fragment: unit.fragment });
    offsets.push(pen);
    const padX = m.emphasis && emphasisPlate ? emphasisPlate.x : 0;
    const padY = m.emphasis && emphasisPlate ? emphasisPlate.y : 0;
    left = Math.min(left, pen + metrics.inkLeft - padX - outline);
    right = Math.max(right, pen + metrics.inkRight + padX + outline);
    top = Math.max(top, metrics.inkTop + padY + outline);
    bottom = Math.max(bottom, metrics.inkBottom + padY + outline);
    pen += metrics.advance;
  }
  if (options.linePlate) {
    left -= options.linePlate.x;
    right += options.linePlate.x;
    top += options.linePlate.y;
    bottom += options.linePlate.y;
  }
  return { order, offsets, left, right, top, bottom };
}

/** Total height in em-weighted pixels of lines at the given sizes, with their gaps. */
function stackHeight(shapes: LineShape[], sizes: number[], options: TitleLayoutOptions): number {
  let height = shapes[0]!.top * sizes[0]!;
  for (let i = 1; i < shapes.length; i++) height += baselineStep(shapes, sizes, i, options);
  return height + shapes.at(-1)!.bottom * sizes.at(-1)!;
}

/** Baseline-to-baseline distance from line i - 1 to line i. */
function baselineStep(shapes: LineShape[], sizes: number[], i: number, options: TitleLayoutOptions): number {
  const above = sizes[i - 1]!;
  const below = sizes[i]!;
  const clear =
    shapes[i - 1]!.bottom * above + options.lineGap * Math.min(above, below) + shapes[i]!.top * below;
  return Math.max(options.leading * below, clear);
}

function sizeLines(shapes: LineShape[], options: TitleLayoutOptions): number[] {
  const { box, maxFontSize } = options;
  const widthFits = shapes.map((s) => box.width / Math.max(EPSILON, s.right - s.left));
  let sizes: number[];
  if (options.mode === 'stack' && shapes.length > 1) {
    const range = options.stackRange ?? 1.6;
    const smallest = Math.min(maxFontSize, ...widthFits);
    sizes = widthFits.map((w) => Math.min(w, smallest * range, maxFontSize * range));
  } else {
    const size = Math.min(maxFontSize, ...widthFits);
    sizes = shapes.map(() => size);
  }
  const height = stackHeight(shapes, sizes, options);
  if (height > box.height) {
    const f = box.height / height;
    sizes = sizes.map((s) => s * f);
  }
  // Rounded down to a hundredth of a pixel so rounding never pushes ink past the box.
  return sizes.map((s) => Math.floor(s * 100) / 100);
}

function place(
  shapes: LineShape[],
  sizes: number[],
  measured: Measured[],
  options: TitleLayoutOptions,
  splitWords: boolean,
): TitleLayout {
  const { box, align, verticalAlign } = options;
  const height = stackHeight(shapes, sizes, options);
  const top =
    verticalAlign === 'top'
      ? box.y
      : verticalAlign === 'bottom'
        ? box.y + box.height - height
        : box.y + (box.height - height) / 2;
  const lines: PlacedLine[] = [];
  const pieces: PlacedPiece[] = [];
  let baseline = top + shapes[0]!.top * sizes[0]!;
  shapes.forEach((shape, lineIndex) => {
    const size = sizes[lineIndex]!;
    if (lineIndex > 0) baseline += baselineStep(shapes, sizes, lineIndex, options);
    const width = (shape.right - shape.left) * size;
    const inkLeft =
      align === 'left'
        ? box.x
        : align === 'right'
          ? box.x + box.width - width
          : box.x + (box.width - width) / 2;
    const origin = inkLeft - shape.left * size;
    const linePieces = shape.order.map(({ index, fragment }, position) => {
      const m = measured[index]!;
      const f = m.fragments[fragment]!;
      const placed: PlacedPiece = {
        index,
        text: f.text,
        start: f.start,
        rtl: f.level % 2 === 1,
        emphasis: m.emphasis,
        line: lineIndex,
        x: origin + shape.offsets[position]! * size,
        baseline,
        size,
        metrics: f.metrics,
      };
      return placed;
    });
    pieces.push(...linePieces);
    const ink = {
      x: inkLeft,
      y: baseline - shape.top * size,
      width,
      height: (shape.top + shape.bottom) * size,
    };
    lines.push({ size, baseline, pieces: linePieces, ink, plate: options.linePlate ? ink : null });
  });
  return {
    lines,
    pieces: pieces.sort((a, b) => a.start - b.start),
    emphasisPlates: emphasisPlates(lines, options),
    bounds: union(lines.map((l) => l.ink)),
    minSize: Math.min(...sizes),
    splitWords,
  };
}

/** One plate per run of visually adjacent emphasised pieces on a line, spanning their ink. */
function emphasisPlates(lines: PlacedLine[], options: TitleLayoutOptions): Rect[] {
  const plate = options.emphasisPlate;
  if (!plate) return [];
  const outline = options.outline ?? 0;
  const plates: Rect[] = [];
  for (const line of lines) {
    let run: PlacedPiece[] = [];
    const flush = () => {
      if (run.length === 0) return;
      const s = line.size;
      const left = Math.min(...run.map((p) => p.x + p.metrics.inkLeft * s)) - (plate.x + outline) * s;
      const right = Math.max(...run.map((p) => p.x + p.metrics.inkRight * s)) + (plate.x + outline) * s;
      const top = line.ink.y + (options.linePlate ? options.linePlate.y * s : 0);
      const bottom = line.ink.y + line.ink.height - (options.linePlate ? options.linePlate.y * s : 0);
      plates.push({ x: left, y: top, width: right - left, height: bottom - top });
      run = [];
    };
    for (const piece of line.pieces) {
      if (piece.emphasis) run.push(piece);
      else flush();
    }
    flush();
  }
  return plates;
}

export function union(rects: Rect[]): Rect {
  const x = Math.min(...rects.map((r) => r.x));
  const y = Math.min(...rects.map((r) => r.y));
  const right = Math.max(...rects.map((r) => r.x + r.width));
  const bottom = Math.max(...rects.map((r) => r.y + r.height));
  return { x, y, width: right - x, height: bottom - y };
}

export function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

export function contains(outer: Rect, inner: Rect, tolerance = 0): boolean {
  return (
    inner.x >= outer.x - tolerance &&
    inner.y >= outer.y - tolerance &&
    inner.x + inner.width <= outer.x + outer.width + tolerance &&
    inner.y + inner.height <= outer.y + outer.height + tolerance
  );
}
