import { readFileSync } from 'node:fs';
import * as hb from 'harfbuzzjs';
import { emojiSvgFile, FONTS, type FontId } from '../fonts/catalogue.js';
import { fontsFor, LAST_RESORT, LATIN_FALLBACK, scriptClassOf, type ScriptClass } from '../fonts/fallback.js';
import type { PieceMetrics, ScriptContext } from '../layout/index.js';
import { LruCache } from './lru.js';

/**
 * A glyph of a shaped text: its font, glyph id, pen position in em (y up from the baseline) and the
 * UTF-16 offset in the text of the first character it draws.
 */
export interface ShapedGlyph {
  font: FontId;
  glyph: number;
  x: number;
  y: number;
  cluster: number;
}

/** An emoji of a shaped text, drawn as an image: left edge in em, square of `EMOJI_EM`. */
export interface ShapedEmoji {
  file: string;
  x: number;
  cluster: number;
}

export interface ShapedText extends PieceMetrics {
  glyphs: ShapedGlyph[];
  emoji: ShapedEmoji[];
  /** Synthetic oblique: x += skew · y. */
  skew: number;
  /** Graphemes no bundled font covers, drawn as the missing-glyph box. */
  missing: string[];
}

/** A grapheme's ink box in em relative to the text's pen origin (y up), and its UTF-16 offset. */
export interface ClusterBox {
  cluster: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Emoji are drawn this many em square, sitting a little below the baseline like the letters' feet. */
export const EMOJI_EM = 0.86;
export const EMOJI_DROP = 0.06;
const EMOJI_ADVANCE = 0.98;

/** Outline commands in em, y up: 0 move (x y), 1 line (x y), 2 quad (cx cy x y), 3 cubic (6), 4 close. */
export type Outline = Float64Array;

interface LoadedFont {
  id: FontId;
  font: hb.Font;
  upem: number;
  covers: Set<number>;
  outlines: Map<number, Outline>;
  extents: Map<number, hb.GlyphExtents | null>;
  capHeight: number;
}

const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;
const LETTER = /\p{L}/u;
/** Code points a font need not map for the shaper to handle them: joiners, selectors, marks of direction. */
function isIgnorable(cp: number): boolean {
  return (
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xe0000 && cp <= 0xe007f)
  );
}

/** What no bundled font covers is drawn as this face's missing-glyph box (glyph 0), never dropped. */
const MISSING_FONT: FontId = 'noto-sans-black';

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/** A grapheme's kind: emoji, a character that takes its neighbours' font, or a script class. */
type Kind = 'emoji' | 'common' | ScriptClass;

/**
 * Shapes text with HarfBuzz on the bundled fonts, one font per run of script, and answers the
 * layout engine's questions from the shaped result: what is drawn is exactly what was measured.
 * Fonts, outlines and glyph extents are cached for the life of the process, recently shaped pieces
 * up to a count.
 */
export class Shaper {
  private readonly fonts = new Map<FontId, LoadedFont>();
  /** How many shaped pieces are kept. */
  static readonly CACHE_ENTRIES = 2_048;
  /**
   * Shaped pieces, most recently used kept. A render shapes each piece several times (measuring
   * candidate layouts, then drawing) and common words recur across titles, but nearly every title
   * brings pieces of its own: about 3 new entries and 6 KB of glyphs per render, so a cache of 50,000
   * entries cleared when full grew the heap by 6 KB a request up to about 100 MB.
   */
  private readonly shaped = new LruCache<ShapedText>(Shaper.CACHE_ENTRIES);

  /**
   * Shapes a run of title text of one bidi direction (`rtl` for an odd embedding level) in `primary`,
   * falling back per script; the glyphs come out in visual order, left to right.
   */
  shape(text: string, primary: FontId, skew: number, context: ScriptContext, rtl = false): ShapedText {
    const key = `${primary}\u0000${skew}\u0000${context}\u0000${rtl ? 'r' : 'l'}\u0000${text}`;
    const known = this.shaped.get(key);
    if (known) return known;
    const result = this.shapeUncached(text, primary, skew, context, rtl);
    this.shaped.set(key, result);
    return result;
  }

  /** Cap height of a font in em: the height of flat capitals above the baseline. */
  capHeight(id: FontId): number {
    return this.load(id).capHeight;
  }

  /** The outline of a glyph in em, y up; cached. */
  outline(id: FontId, glyph: number): Outline {
    const font = this.load(id);
    let outline = font.outlines.get(glyph);
    if (!outline) {
      const commands = font.font.glyphToJson(glyph);
      const values: number[] = [];
      const s = 1 / font.upem;
      for (const { type, values: v } of commands) {
        const op = type === 'M' ? 0 : type === 'L' ? 1 : type === 'Q' ? 2 : type === 'C' ? 3 : 4;
        values.push(op, ...v.map((n) => n * s));
      }
      outline = Float64Array.from(values);
      font.outlines.set(glyph, outline);
    }
    return outline;
  }

  private load(id: FontId): LoadedFont {
    let font = this.fonts.get(id);
    if (!font) {
      const face = new hb.Face(new hb.Blob(readFileSync(FONTS[id].file)));
      const hbFont = new hb.Font(face);
      const upem = face.upem;
      const covers = new Set(face.collectUnicodes());
      const capGlyph = hbFont.nominalGlyph(0x48);
      const capExtents = capGlyph === undefined ? undefined : hbFont.glyphExtents(capGlyph);
      font = {
        id,
        font: hbFont,
        upem,
        covers,
        outlines: new Map(),
        extents: new Map(),
        capHeight: capExtents ? capExtents.yBearing / upem : 0.7,
      };
      this.fonts.set(id, font);
    }
    return font;
  }

  /** A glyph's ink at pen position (x, y) in em: left, right, top (up) and bottom (down), or null if blank. */
  private inkOf(
    font: LoadedFont,
    glyph: number,
    x: number,
    y: number,
  ): [number, number, number, number] | null {
    const e = this.extentsOf(font, glyph);
    if (!e) return null;
    const s = 1 / font.upem;
    return [
      x + e.xBearing * s,
      x + (e.xBearing + e.width) * s,
      y + e.yBearing * s,
      -(y + (e.yBearing + e.height) * s),
    ];
  }

  private extentsOf(font: LoadedFont, glyph: number): hb.GlyphExtents | null {
    let extents = font.extents.get(glyph);
    if (extents === undefined) {
      const e = font.font.glyphExtents(glyph);
      extents = e && e.width !== 0 && e.height !== 0 ? e : null;
      font.extents.set(glyph, extents);
    }
    return extents;
  }

  /** Each grapheme's ink box, in visual order: where a test looks for its ink. */
  clusterBoxes(shaped: ShapedText): ClusterBox[] {
    const boxes = new Map<number, ClusterBox>();
    const grow = (cluster: number, left: number, right: number, top: number, bottom: number) => {
      const box = boxes.get(cluster);
      if (!box) boxes.set(cluster, { cluster, left, right, top, bottom });
      else {
        box.left = Math.min(box.left, left);
        box.right = Math.max(box.right, right);
        box.top = Math.max(box.top, top);
        box.bottom = Math.max(box.bottom, bottom);
      }
    };
    for (const g of shaped.glyphs) {
      const ink = this.inkOf(this.load(g.font), g.glyph, g.x, g.y);
      if (ink) grow(g.cluster, ...ink);
    }
    for (const e of shaped.emoji) grow(e.cluster, e.x, e.x + EMOJI_EM, EMOJI_EM - EMOJI_DROP, EMOJI_DROP);
    return [...boxes.values()];
  }

  private covers(id: FontId, cluster: string): boolean {
    const font = this.load(id);
    for (const char of cluster) {
      const cp = char.codePointAt(0)!;
      if (!isIgnorable(cp) && !font.covers.has(cp)) return false;
    }
    return true;
  }

  private firstCovering(fonts: Iterable<FontId | undefined>, clusters: string[]): FontId | undefined {
    for (const id of fonts) if (id && clusters.every((c) => this.covers(id, c))) return id;
    return undefined;
  }

  /**
   * The font of every grapheme: a run of one script takes the first of its fonts that covers the
   * whole run (else each grapheme its own); characters common to all scripts (digits, punctuation)
   * join the run next to them when its font has them, so "2024" inside Arabic stays in the Arabic face.
   */
  private assignFonts(
    clusters: string[],
    primary: FontId,
    context: ScriptContext,
  ): Array<FontId | 'emoji' | null> {
    const kinds = clusters.map(kindOf);
    const assigned: Array<FontId | 'emoji' | null> = clusters.map(() => null);
    let i = 0;
    while (i < clusters.length) {
      const kind = kinds[i]!;
      let end = i + 1;
      while (end < clusters.length && kinds[end] === kind) end++;
      if (kind === 'emoji') {
        for (let j = i; j < end; j++) {
          const c = clusters[j]!;
          // An emoji sequence without a picture is drawn as text (a keycap digit, a symbol).
          assigned[j] = emojiSvgFile(c)
            ? 'emoji'
            : (this.firstCovering(
                [primary, ...LATIN_FALLBACK, ...LAST_RESORT],
                [c.replace(/\ufe0f/gu, '')],
              ) ?? null);
        }
      } else if (kind !== 'common') {
        const candidates = fontsFor(kind, primary, context);
        const run = clusters.slice(i, end);
        const whole = this.firstCovering(candidates, run);
        for (let j = i; j < end; j++) {
          assigned[j] = whole ?? this.firstCovering([...candidates, ...LAST_RESORT], [clusters[j]!]) ?? null;
        }
      }
      i = end;
    }
    const strong = (f: FontId | 'emoji' | null | undefined) => (f && f !== 'emoji' ? f : undefined);
    clusters.forEach((cluster, i) => {
      if (kinds[i] !== 'common') return;
      const before = assigned.slice(0, i).reverse().map(strong).find(Boolean);
      const after = assigned
        .slice(i + 1)
        .map(strong)
        .find(Boolean);
      assigned[i] =
        this.firstCovering([before, after, primary, ...LATIN_FALLBACK, ...LAST_RESORT], [cluster]) ?? null;
    });
    return assigned;
  }

  private shapeUncached(
    text: string,
    primary: FontId,
    skew: number,
    context: ScriptContext,
    rtl: boolean,
  ): ShapedText {
    const segments = Array.from(graphemes.segment(text));
    const clusters = segments.map((s) => s.segment);
    const assigned = this.assignFonts(clusters, primary, context);
    const missing = clusters.filter((_, i) => assigned[i] === null);

    // Runs of one font in logical order; the text has one direction, so right to left reverses them.
    interface Run {
      font: FontId | 'emoji' | null;
      start: number;
      text: string;
    }
    const runs: Run[] = [];
    segments.forEach(({ segment, index }, i) => {
      const font = assigned[i]!;
      const last = runs.at(-1);
      if (last && last.font === font && font !== 'emoji') last.text += segment;
      else runs.push({ font, start: index, text: segment });
    });
    if (rtl) runs.reverse();

    const glyphs: ShapedGlyph[] = [];
    const emoji: ShapedEmoji[] = [];
    let pen = 0;
    let inkLeft = Infinity;
    let inkRight = -Infinity;
    let inkTop = 0;
    let inkBottom = 0;
    const includeBox = (left: number, right: number, top: number, bottom: number) => {
      // The oblique slant moves the top of a glyph right and its foot left.
      const lefts = [left + skew * top, left - skew * bottom];
      const rights = [right + skew * top, right - skew * bottom];
      inkLeft = Math.min(inkLeft, ...lefts);
      inkRight = Math.max(inkRight, ...rights);
      inkTop = Math.max(inkTop, top);
      inkBottom = Math.max(inkBottom, bottom);
    };
    for (const run of runs) {
      if (run.font === 'emoji') {
        const file = emojiSvgFile(run.text)!;
        const x = pen + (EMOJI_ADVANCE - EMOJI_EM) / 2;
        emoji.push({ file, x, cluster: run.start });
        includeBox(x, x + EMOJI_EM, EMOJI_EM - EMOJI_DROP, EMOJI_DROP);
        pen += EMOJI_ADVANCE;
        continue;
      }
      const fontId = run.font ?? MISSING_FONT;
      const font = this.load(fontId);
      const s = 1 / font.upem;
      const placed = run.font
        ? this.shapeRun(font, run.text, rtl)
        : // One missing-glyph box per grapheme.
          Array.from(graphemes.segment(run.text), (g) => ({
            codepoint: 0,
            cluster: g.index,
            xAdvance: font.font.glyphHAdvance(0),
            xOffset: 0,
            yOffset: 0,
          }));
      for (const g of placed) {
        const x = pen + g.xOffset * s;
        const y = g.yOffset * s;
        glyphs.push({ font: fontId, glyph: g.codepoint, x, y, cluster: run.start + g.cluster });
        const ink = this.inkOf(font, g.codepoint, x, y);
        if (ink) includeBox(...ink);
        pen += g.xAdvance * s;
      }
    }
    if (inkLeft === Infinity) {
      inkLeft = 0;
      inkRight = 0;
    }
    return { advance: pen, inkLeft, inkRight, inkTop, inkBottom, glyphs, emoji, skew, missing };
  }

  private shapeRun(
    font: LoadedFont,
    text: string,
    rtl: boolean,
  ): Array<{ codepoint: number; cluster: number; xAdvance: number; xOffset: number; yOffset: number }> {
    const buffer = new hb.Buffer();
    buffer.addText(text);
    buffer.guessSegmentProperties();
    // The direction is the bidi algorithm's, not the script's: digits inside Arabic run left to right.
    buffer.setDirection(rtl ? hb.Direction.RTL : hb.Direction.LTR);
    hb.shape(font.font, buffer);
    return buffer.getGlyphInfosAndPositions().map((g) => ({
      codepoint: g.codepoint,
      cluster: g.cluster,
      xAdvance: g.xAdvance ?? 0,
      xOffset: g.xOffset ?? 0,
      yOffset: g.yOffset ?? 0,
    }));
  }
}

function kindOf(cluster: string): Kind {
  if (EMOJI.test(cluster) && !/^[\p{L}\p{N}]$/u.test(cluster)) {
    // A digit or # is an emoji only as a keycap sequence.
    if (/^[0-9#*]/u.test(cluster) && !cluster.includes('\u20e3')) return 'common';
    return 'emoji';
  }
  const script = scriptClassOf(cluster);
  if (script !== 'latin') return script;
  return LETTER.test(cluster) ? 'latin' : 'common';
}
