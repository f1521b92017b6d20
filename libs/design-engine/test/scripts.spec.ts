import { describe, expect, it } from 'vitest';
import bidiModule from 'bidi-js';
import { Renderer, type MissingGlyphs } from '../src/engine.js';
import type { Canvas } from '../src/paint/canvas.js';
import { titleBidi } from '../src/layout/bidi.js';
import type { Design, PlacedPiece, Rect } from '../src/layout/index.js';
import { contains } from '../src/layout/title-layout.js';
import { Shaper } from '../src/paint/shaper.js';
import { SCRIPT_SAMPLES as CORPUS } from '../src/script-samples.js';
import { jobSpec } from '../testing/index.js';
import { changedBounds, renderedContrast } from './pixels.js';

const bidi = (bidiModule as unknown as typeof bidiModule.default)();
const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });
const shaper = new Shaper();

/** Pixels in `rect` where the picture changed from the backdrop: where the title put ink. */
function inkIn(backdrop: Canvas, canvas: Canvas, rect: Rect): number {
  let count = 0;
  const x0 = Math.max(0, Math.floor(rect.x));
  const y0 = Math.max(0, Math.floor(rect.y));
  const x1 = Math.min(canvas.width, Math.ceil(rect.x + rect.width));
  const y1 = Math.min(canvas.height, Math.ceil(rect.y + rect.height));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * canvas.width + x) * 3;
      const d =
        Math.abs(canvas.data[i]! - backdrop.data[i]!) +
        Math.abs(canvas.data[i + 1]! - backdrop.data[i + 1]!) +
        Math.abs(canvas.data[i + 2]! - backdrop.data[i + 2]!);
      if (d > 60) count++;
    }
  }
  return count;
}

/** Each grapheme of a placed piece with the canvas box of the cluster that draws it. */
function graphemeBoxes(design: Design, piece: PlacedPiece): Array<{ grapheme: string; box: Rect | null }> {
  const font = piece.emphasis ? design.emphasisFont : design.font;
  const shaped = shaper.shape(piece.text, font, design.skew, design.context, piece.rtl);
  const clusters = shaper.clusterBoxes(shaped).sort((a, b) => a.cluster - b.cluster);
  const s = piece.size;
  return Array.from(graphemes.segment(piece.text), ({ segment, index }) => {
    // HarfBuzz may draw several graphemes as one cluster (a conjunct): they share its box.
    const c = clusters.filter((b) => b.cluster <= index).at(-1);
    if (!c) return { grapheme: segment, box: null };
    const slant = Math.abs(shaped.skew) * Math.max(c.top, c.bottom);
    return {
      grapheme: segment,
      box: {
        x: piece.x + (c.left - slant) * s,
        y: piece.baseline - c.top * s,
        width: (c.right - c.left + 2 * slant) * s,
        height: (c.top + c.bottom) * s,
      },
    };
  });
}

/** The title's characters left to right as the layout placed them: fragments in order, RTL ones reversed. */
function placedVisualIndices(pieces: PlacedPiece[]): number[] {
  return pieces.flatMap((p) => {
    const indices = Array.from({ length: p.text.length }, (_, i) => p.start + i);
    return p.rtl ? indices.reverse() : indices;
  });
}

describe('a corpus of titles in every script', () => {
  it('covers every script the engine promises, with at least 40 titles', () => {
    const scripts = new Set(CORPUS.map((c) => c.script));
    for (const script of [
      'Latin',
      'Vietnamese',
      'Greek',
      'Cyrillic',
      'Armenian',
      'Georgian',
      'Hebrew',
      'Arabic',
      'Persian',
      'Urdu',
      'Devanagari',
      'Bengali',
      'Gurmukhi',
      'Gujarati',
      'Oriya',
      'Tamil',
      'Telugu',
      'Kannada',
      'Malayalam',
      'Sinhala',
      'Thai',
      'Lao',
      'Khmer',
      'Myanmar',
      'Ethiopic',
      'Simplified Chinese',
      'Traditional Chinese',
      'Japanese',
      'Hangul',
      'Emoji',
    ]) {
      expect(scripts, script).toContain(script);
    }
    expect(CORPUS.length).toBeGreaterThanOrEqual(40);
  });

  const renderer = new Renderer({
    onMissingGlyphs: (report) => {
      throw new Error(`glyphs missing: ${report.codePoints.join(', ')}`);
    },
  });

  it.each(CORPUS.map((c) => [c.script, c.title, c] as const))(
    '%s: %s',
    async (_script, title, { category }) => {
      const job = jobSpec({ title, category, format: 'youtube' });
      const plan = await renderer.design(job, {});
      expect(plan.missing).toEqual([]);
      const composition = await renderer.paint(plan, {}, { keepBackdrop: true });
      const { design, canvas, backdrop } = composition;
      const layout = design.layout!;

      // Nothing dropped: the placed text is the title without its spaces, in logical order.
      expect(layout.pieces.map((p) => p.text).join('')).toBe(design.title.replace(/ /gu, ''));

      // Every grapheme has ink in its cluster's box.
      for (const piece of layout.pieces) {
        for (const { grapheme, box } of graphemeBoxes(design, piece)) {
          if (/^\s$/u.test(grapheme)) continue;
          expect(box, grapheme).not.toBeNull();
          expect(inkIn(backdrop!, canvas, box!), `${grapheme} in ${piece.text}`).toBeGreaterThan(0);
        }
      }

      // Each line reads in the order the Unicode bidi algorithm gives.
      const { levels } = titleBidi(design.title);
      const embedding = {
        levels,
        paragraphs: [{ start: 0, end: design.title.length - 1, level: levels[0]! }],
      };
      const actual = bidi.getEmbeddingLevels(design.title);
      expect(Array.from(actual.levels)).toEqual(Array.from(embedding.levels));
      for (const line of layout.lines) {
        const start = Math.min(...line.pieces.map((p) => p.start));
        const end = Math.max(...line.pieces.map((p) => p.start + p.text.length)) - 1;
        const expected = bidi
          .getReorderedIndices(design.title, actual, start, end)
          .filter((i) => i >= start && i <= end && !/\s/u.test(design.title[i]!));
        expect(placedVisualIndices(line.pieces), `line ${start}–${end}`).toEqual(expected);
      }

      // Inside the title's box (the safe area of the template), and readable.
      const changed = changedBounds(backdrop!, canvas, composition.logo);
      expect(changed).not.toBeNull();
      const room = layout.minSize * 0.2 + 2;
      const box = design.template.titleBox;
      expect(
        contains(
          { x: box.x - room, y: box.y - room, width: box.width + 2 * room, height: box.height + 2 * room },
          changed!,
        ),
      ).toBe(true);
      const { worst, textPixels } = renderedContrast(composition, canvas);
      expect(textPixels).toBeGreaterThan(0);
      expect(worst).toBeGreaterThanOrEqual(4.5);
    },
  );
});

describe('characters no font covers', () => {
  it('are drawn as a visible box and logged with their code points', async () => {
    const reports: MissingGlyphs[] = [];
    const renderer = new Renderer({ onMissingGlyphs: (r) => reports.push(r) });
    const job = jobSpec({ title: 'Private \u{F0001} use', category: 'tech-saas' });
    const plan = await renderer.design(job, {});
    expect(plan.missing).toEqual(['\u{F0001}']);
    expect(reports).toEqual([{ jobId: job.jobId, graphemes: ['\u{F0001}'], codePoints: ['U+F0001'] }]);
    const { canvas, backdrop, design } = await renderer.paint(plan, {}, { keepBackdrop: true });
    const piece = design.layout!.pieces.find((p) => p.text.includes('\u{F0001}'))!;
    const box = graphemeBoxes(design, piece).find((g) => g.grapheme === '\u{F0001}')!.box!;
    expect(inkIn(backdrop!, canvas, box)).toBeGreaterThan(0);
  });
});
