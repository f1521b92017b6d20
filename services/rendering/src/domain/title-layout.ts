import type { TitlePiece } from './text.js';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Width in em (at a font size of 1) of a piece or of a single space; widths scale linearly with the
 * size. Only ever called with those strings, so a renderer can measure them all beforehand.
 */
export type Measure = (text: string) => number;

export interface TitleLayoutOptions {
  pieces: TitlePiece[];
  measure: Measure;
  /** Width and height available to the title block, in pixels. */
  box: { width: number; height: number };
  /** The largest font size worth using: short titles stop growing here. */
  maxFontSize: number;
  /** Below this size a title may use up to `longTitleMaxLines` lines. */
  minFontSize: number;
  /** Line count for an ordinary title (default 4). */
  maxLines?: number;
  /** Line count allowed when even `maxLines` would fall below `minFontSize` (default 7). */
  longTitleMaxLines?: number;
  /** Baseline-to-baseline distance in em (default 1.06). */
  lineHeight?: number;
  /** Height of one line's ink, ascenders to descenders, in em (default 1.15). */
  inkHeight?: number;
}

export interface TitleLayout {
  lines: string[];
  /** Measured width of each line in pixels at `fontSize`. */
  lineWidths: number[];
  fontSize: number;
  /** Baseline-to-baseline distance in pixels. */
  lineAdvance: number;
  /** The block's expected size in pixels; it never exceeds the box. */
  width: number;
  height: number;
  /** The line drawn in the emphasis colour, or null for a single line. */
  emphasisLine: number | null;
}

interface Breaking {
  /** Index of the first piece of each line. */
  starts: number[];
  /** Widest line in em. */
  widest: number;
}

/**
 * Lays a title out in its box: for each line count up to the maximum, the most balanced breaking
 * (the widest line as narrow as possible), then the largest font size at which that breaking fits
 * both the box width and height; the line count giving the largest size wins, fewer lines on a near
 * tie. Pieces wider than the box even at the minimum size are split between characters.
 */
export function layoutTitle(options: TitleLayoutOptions): TitleLayout {
  const { box, maxFontSize, minFontSize, measure } = options;
  const maxLines = options.maxLines ?? 4;
  const longTitleMaxLines = options.longTitleMaxLines ?? 7;
  const lineHeight = options.lineHeight ?? 1.06;
  const inkHeight = options.inkHeight ?? 1.15;
  const measured = splitOverwide(options.pieces, measure, box.width / minFontSize);
  if (measured.length === 0) throw new Error('a title needs at least one visible character');
  const pieces = measured.map((m) => m.piece);
  const widths = measured.map((m) => m.width);
  const space = measure(' ');
  const sizeFor = (lines: number, widest: number) =>
    Math.min(maxFontSize, box.width / widest, box.height / ((lines - 1) * lineHeight + inkHeight));

  let best: { breaking: Breaking; size: number } | null = null;
  const consider = (lines: number) => {
    if (lines > pieces.length) return;
    const breaking = balancedBreaking(widths, pieces, space, lines);
    const size = sizeFor(lines, breaking.widest);
    // A further line must buy a clearly larger size to be worth it.
    if (!best || size > best.size * 1.04) best = { breaking, size };
  };
  for (let lines = 1; lines <= maxLines; lines++) consider(lines);
  if (best!.size < minFontSize)
    for (let lines = maxLines + 1; lines <= longTitleMaxLines; lines++) consider(lines);

  const { breaking, size } = best!;
  const fontSize = Math.floor(size * 100) / 100;
  const lines: string[] = [];
  const lineWidths: number[] = [];
  breaking.starts.forEach((start, i) => {
    const end = breaking.starts[i + 1] ?? pieces.length;
    lines.push(joinPieces(pieces.slice(start, end)));
    lineWidths.push(lineWidth(widths, pieces, space, start, end) * fontSize);
  });
  return {
    lines,
    lineWidths,
    fontSize,
    lineAdvance: fontSize * lineHeight,
    width: Math.max(...lineWidths),
    height: ((lines.length - 1) * lineHeight + inkHeight) * fontSize,
    emphasisLine: lines.length > 1 ? lines.length - 1 : null,
  };
}

export function joinPieces(pieces: TitlePiece[]): string {
  return pieces.map((p, i) => (i > 0 && p.spaceBefore ? ' ' : '') + p.text).join('');
}

function lineWidth(
  widths: number[],
  pieces: TitlePiece[],
  space: number,
  start: number,
  end: number,
): number {
  let total = 0;
  for (let i = start; i < end; i++) total += widths[i]! + (i > start && pieces[i]!.spaceBefore ? space : 0);
  return total;
}

/**
 * Minimises the widest line over all ways of cutting the pieces into exactly `lines` lines; among
 * equally wide solutions the most even one (smallest sum of squared widths) wins. O(lines · n²).
 */
function balancedBreaking(widths: number[], pieces: TitlePiece[], space: number, lines: number): Breaking {
  const n = pieces.length;
  type Cost = { widest: number; squares: number; previous: number };
  // cost[k][j]: the first j pieces in k lines.
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
        const w = lineWidth(widths, pieces, space, i, j);
        const candidate = {
          widest: Math.max(before.widest, w),
          squares: before.squares + w * w,
          previous: i,
        };
        if (
          !bestCost ||
          candidate.widest < bestCost.widest - 1e-9 ||
          (Math.abs(candidate.widest - bestCost.widest) <= 1e-9 && candidate.squares < bestCost.squares)
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
  return { starts, widest: cost[lines]![n]!.widest };
}

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/**
 * Cuts a piece wider than `maxEm` into runs of whole characters that each fit, estimating each
 * character as an equal share of the piece's width.
 */
function splitOverwide(
  pieces: TitlePiece[],
  measure: Measure,
  maxEm: number,
): Array<{ piece: TitlePiece; width: number }> {
  const out: Array<{ piece: TitlePiece; width: number }> = [];
  for (const piece of pieces) {
    const width = measure(piece.text);
    if (width <= maxEm) {
      out.push({ piece, width });
      continue;
    }
    const chars = Array.from(graphemes.segment(piece.text), (s) => s.segment);
    const perChar = width / chars.length;
    const perRun = Math.max(1, Math.floor(maxEm / perChar));
    for (let i = 0; i < chars.length; i += perRun) {
      const run = chars.slice(i, i + perRun);
      out.push({
        piece: { text: run.join(''), spaceBefore: i === 0 && piece.spaceBefore },
        width: run.length * perChar,
      });
    }
  }
  return out;
}
