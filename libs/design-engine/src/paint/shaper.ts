import { readFileSync } from 'node:fs';
import { emojiSvgFile, FONTS, type FontId } from '@thumbforge/imaging';
import * as hb from 'harfbuzzjs';
import type { PieceMetrics, ScriptContext } from '../layout/index.js';

/** A glyph of a shaped text: its font, glyph id and pen position in em (y up from the baseline). */
export interface ShapedGlyph {
  font: FontId;
  glyph: number;
  x: number;
  y: number;
}

/** An emoji of a shaped text, drawn as an image: left edge in em, square of `EMOJI_EM`. */
export interface ShapedEmoji {
  file: string;
  x: number;
}

export interface ShapedText extends PieceMetrics {
  glyphs: ShapedGlyph[];
  emoji: ShapedEmoji[];
  /** Synthetic oblique: x += skew · y. */
  skew: number;
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

type Script =
  'arabic' | 'hebrew' | 'thai' | 'devanagari' | 'han' | 'kana' | 'hangul' | 'emoji' | 'other' | 'common';

const SCRIPT_TESTS: Array<[Script, RegExp]> = [
  ['arabic', /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}]/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['thai', /[\p{Script=Thai}\p{Script=Lao}]/u],
  ['devanagari', /\p{Script=Devanagari}/u],
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['han', /\p{Script=Han}/u],
  ['hangul', /\p{Script=Hangul}/u],
];
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;
const LETTER_OR_NUMBER = /[\p{L}\p{N}\p{M}]/u;
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
const RTL_SCRIPTS = new Set<Script>(['arabic', 'hebrew']);

/** Fonts that cover the common Latin, Greek and Cyrillic text after a style's own face. */
const LATIN_FALLBACK: FontId[] = ['montserrat-black', 'noto-sans-black', 'rubik-black'];
/** The rest, in order, for anything no earlier choice covers. */
const LAST_RESORT: FontId[] = [
  'noto-sans-black',
  'rubik-black',
  'noto-kufi-arabic-black',
  'kanit-extrabold',
  'poppins-extrabold',
  'zcool-qingke-huangyou',
  'dela-gothic-one',
  'black-han-sans',
];

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/**
 * Shapes text with HarfBuzz on the bundled fonts, one font per run of script, and answers the
 * layout engine's questions from the shaped result: what is drawn is exactly what was measured.
 * Fonts, outlines, glyph extents and shaped words are cached for the life of the process.
 */
export class Shaper {
  private readonly fonts = new Map<FontId, LoadedFont>();
  private readonly shaped = new Map<string, ShapedText>();
  private static readonly CACHE_LIMIT = 50_000;

  /** Shapes a piece of title text (a word or a run of CJK/Thai) in `primary`, falling back per script. */
  shape(text: string, primary: FontId, skew: number, context: ScriptContext): ShapedText {
    const key = `${primary}\u0000${skew}\u0000${context}\u0000${text}`;
    const known = this.shaped.get(key);
    if (known) return known;
    const result = this.shapeUncached(text, primary, skew, context);
    if (this.shaped.size >= Shaper.CACHE_LIMIT) this.shaped.clear();
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

  private extentsOf(font: LoadedFont, glyph: number): hb.GlyphExtents | null {
    let extents = font.extents.get(glyph);
    if (extents === undefined) {
      const e = font.font.glyphExtents(glyph);
      extents = e && e.width !== 0 && e.height !== 0 ? e : null;
      font.extents.set(glyph, extents);
    }
    return extents;
  }

  private covers(id: FontId, cluster: string): boolean {
    const font = this.load(id);
    for (const char of cluster) {
      const cp = char.codePointAt(0)!;
      if (!isIgnorable(cp) && !font.covers.has(cp)) return false;
    }
    return true;
  }

  private candidates(script: Script, primary: FontId, context: ScriptContext): FontId[] {
    switch (script) {
      case 'arabic':
        return ['noto-kufi-arabic-black', 'rubik-black', 'noto-sans-black'];
      case 'hebrew':
        return ['rubik-black', 'noto-sans-black'];
      case 'thai':
        return ['kanit-extrabold'];
      case 'devanagari':
        return ['poppins-extrabold', 'noto-sans-black'];
      case 'kana':
        return ['dela-gothic-one'];
      case 'hangul':
        return ['black-han-sans'];
      case 'han':
        // Japanese kanji from the Japanese face, Chinese (and Korean hanja) from the Chinese one.
        return context === 'japanese'
          ? ['dela-gothic-one', 'zcool-qingke-huangyou']
          : ['zcool-qingke-huangyou', 'dela-gothic-one'];
      default:
        return [primary, ...LATIN_FALLBACK];
    }
  }

  private fontFor(cluster: string, script: Script, primary: FontId, context: ScriptContext): FontId {
    for (const id of this.candidates(script, primary, context)) if (this.covers(id, cluster)) return id;
    for (const id of LAST_RESORT) if (this.covers(id, cluster)) return id;
    return primary;
  }

  private shapeUncached(text: string, primary: FontId, skew: number, context: ScriptContext): ShapedText {
    // 1. Each grapheme gets a script, then a font; common characters (digits, punctuation) join the
    //    run next to them when its font has them, so "2024" inside Arabic stays in the Arabic face.
    const clusters = Array.from(graphemes.segment(text), (s) => s.segment);
    const scripts = clusters.map(scriptOf);
    const assigned: Array<FontId | 'emoji'> = clusters.map((c, i) =>
      scripts[i] === 'emoji'
        ? emojiSvgFile(c)
          ? 'emoji'
          : this.fontFor(c.replace(/\ufe0f/gu, ''), 'other', primary, context)
        : scripts[i] === 'common'
          ? primary
          : this.fontFor(c, scripts[i]!, primary, context),
    );
    const strongIndex = scripts.findIndex((s) => s !== 'common' && s !== 'emoji');
    clusters.forEach((cluster, i) => {
      if (scripts[i] !== 'common') return;
      const before = [...assigned.slice(0, i)].reverse().find((f) => f !== 'emoji');
      const after = assigned.slice(i + 1).find((_, j) => scripts[i + 1 + j] !== 'common');
      const neighbour = before ?? (strongIndex > i ? after : undefined);
      for (const id of [neighbour, primary, ...LATIN_FALLBACK, ...LAST_RESORT]) {
        if (id && id !== 'emoji' && this.covers(id, cluster)) {
          assigned[i] = id;
          return;
        }
      }
    });

    // 2. Runs of one font, in logical order; a right-to-left word shows its runs in reverse order.
    interface Run {
      font: FontId | 'emoji';
      text: string;
      rtl: boolean;
    }
    const runs: Run[] = [];
    clusters.forEach((cluster, i) => {
      const font = assigned[i]!;
      const rtl = RTL_SCRIPTS.has(scripts[i]!);
      const last = runs.at(-1);
      if (last && last.font === font && font !== 'emoji' && (last.rtl === rtl || scripts[i] === 'common')) {
        last.text += cluster;
      } else if (font === 'emoji') {
        runs.push({ font, text: cluster, rtl: false });
      } else {
        runs.push({ font, text: cluster, rtl });
      }
    });
    const pieceRtl = runs.find((r) => r.font !== 'emoji')?.rtl ?? false;
    const visual = pieceRtl ? reverseRtlOrder(runs) : runs;

    // 3. Shape each run and lay the runs out left to right.
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
    for (const run of visual) {
      if (run.font === 'emoji') {
        const file = emojiSvgFile(run.text)!;
        const x = pen + (EMOJI_ADVANCE - EMOJI_EM) / 2;
        emoji.push({ file, x });
        includeBox(x, x + EMOJI_EM, EMOJI_EM - EMOJI_DROP, EMOJI_DROP);
        pen += EMOJI_ADVANCE;
        continue;
      }
      const font = this.load(run.font);
      const buffer = new hb.Buffer();
      buffer.addText(run.text);
      buffer.guessSegmentProperties();
      hb.shape(font.font, buffer);
      const s = 1 / font.upem;
      for (const g of buffer.getGlyphInfosAndPositions()) {
        const x = pen + (g.xOffset ?? 0) * s;
        const y = (g.yOffset ?? 0) * s;
        glyphs.push({ font: run.font, glyph: g.codepoint, x, y });
        const e = this.extentsOf(font, g.codepoint);
        if (e) {
          includeBox(
            x + e.xBearing * s,
            x + (e.xBearing + e.width) * s,
            y + e.yBearing * s,
            -(y + (e.yBearing + e.height) * s),
          );
        }
        pen += (g.xAdvance ?? 0) * s;
      }
    }
    if (inkLeft === Infinity) {
      inkLeft = 0;
      inkRight = 0;
    }
    return { advance: pen, inkLeft, inkRight, inkTop, inkBottom, glyphs, emoji, skew };
  }
}

function scriptOf(cluster: string): Script {
  if (EMOJI.test(cluster) && !/^[\p{L}\p{N}]$/u.test(cluster)) {
    // A digit or # is an emoji only as a keycap sequence.
    if (/^[0-9#*]/u.test(cluster) && !cluster.includes('\u20e3')) return 'common';
    return 'emoji';
  }
  for (const [script, test] of SCRIPT_TESTS) if (test.test(cluster)) return script;
  return LETTER_OR_NUMBER.test(cluster) && /\p{L}/u.test(cluster) ? 'other' : 'common';
}

/** Inside a right-to-left word, runs show right to left, except that left-to-right runs keep their order. */
function reverseRtlOrder<T extends { rtl: boolean }>(runs: T[]): T[] {
  const out: T[] = [];
  let i = runs.length - 1;
  while (i >= 0) {
    if (runs[i]!.rtl) {
      out.push(runs[i]!);
      i--;
      continue;
    }
    let start = i;
    while (start - 1 >= 0 && !runs[start - 1]!.rtl) start--;
    out.push(...runs.slice(start, i + 1));
    i = start - 1;
  }
  return out;
}
