import type { Parser } from 'budoux';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The linebreak package (UAX #14) ships no types: this is the part of it used here. */
interface LineBreaker {
  /** The next offset where a line may start, or null at the end. */
  nextBreak(): { position: number; required: boolean } | null;
}
const require = createRequire(import.meta.url);
const LineBreaker = require('linebreak') as new (text: string) => LineBreaker;

/** A run of title text that is never broken inside; lines break only between pieces. */
export interface TitlePiece {
  text: string;
  /** UTF-16 offset in the title: where the bidi levels of the piece are read. */
  start: number;
  /** Joined to the previous piece by a space (false inside Chinese, Japanese or Thai text). */
  spaceBefore: boolean;
}

/** Which Han forms a title wants: Japanese kanji, or Chinese (also for Korean hanja and by default). */
export type ScriptContext = 'japanese' | 'korean' | 'chinese' | 'default';

const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /\p{Script=Hangul}/u;
/** Scripts written without spaces whose words come from the segmenter's dictionary (UAX #14 class SA). */
const DICTIONARY = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/**
 * Common characters written only in Traditional Chinese: a title with one of them is phrased by
 * BudouX's Traditional model.
 */
const TRADITIONAL = /[們個這來時說對會過還學國開關為點發現體後間樣經義電麼氣長實問從動機讓應當產種聽]/u;

type PhraseModel = 'ja' | 'zh-hans' | 'zh-hant';
const parsers = new Map<PhraseModel, Parser>();
const BUDOUX = dirname(require.resolve('budoux'));

/**
 * BudouX's parser with one of its models, loaded from their own files on the first title that needs
 * it: the package's entry point also loads its HTML processor and linkedom's DOM, about 24 MB of a
 * process's memory, which phrasing a title never uses; the three models are 8 MB more.
 */
function phraseParser(model: PhraseModel): Parser {
  let parser = parsers.get(model);
  if (!parser) {
    const { Parser } = require(join(BUDOUX, 'parser.js')) as typeof import('budoux');
    const weights = require(join(BUDOUX, 'data', 'models', `${model}.js`)) as {
      model: ConstructorParameters<typeof Parser>[0];
    };
    parser = new Parser(weights.model);
    parsers.set(model, parser);
  }
  return parser;
}
const words = new Intl.Segmenter('und', { granularity: 'word' });

/**
 * Splits a title into unbreakable pieces at the break opportunities of the Unicode line breaking
 * algorithm (UAX #14), narrowed where the script asks for it: Japanese and Chinese break only between
 * BudouX's phrases, Korean only between words (keep-all), and Thai, Lao, Khmer and Myanmar between the
 * words of the segmenter's dictionary.
 */
export function titlePieces(title: string, context: ScriptContext = scriptContextOf(title)): TitlePiece[] {
  const breaks = new Set<number>();
  const breaker = new LineBreaker(title);
  for (let b = breaker.nextBreak(); b; b = breaker.nextBreak()) breaks.add(b.position);

  const around = (p: number, test: RegExp) => test.test(charBefore(title, p)) || test.test(charAt(title, p));
  const within = (p: number, test: RegExp) => test.test(charBefore(title, p)) && test.test(charAt(title, p));
  if (IDEOGRAPHIC.test(title)) {
    // BudouX's phrases, never cutting a word of the segmenter's dictionary ("最值 / 得" is one).
    const phrases = phraseBoundaries(title, context);
    const wordEdges = new Set(Array.from(words.segment(title), (w) => w.index));
    for (const p of breaks) {
      const spaced = /\s/u.test(charBefore(title, p));
      if (around(p, IDEOGRAPHIC) && !spaced && !(phrases.has(p) && wordEdges.has(p))) breaks.delete(p);
    }
  }
  if (HANGUL.test(title)) for (const p of breaks) if (within(p, HANGUL)) breaks.delete(p);
  if (DICTIONARY.test(title)) {
    for (const { index } of words.segment(title))
      if (index > 0 && within(index, DICTIONARY)) breaks.add(index);
  }

  const pieces: TitlePiece[] = [];
  let start = 0;
  for (const end of [...breaks]
    .filter((p) => p > 0 && p < title.length)
    .sort((a, b) => a - b)
    .concat(title.length)) {
    const segment = title.slice(start, end);
    const text = segment.trimEnd();
    const lead = segment.length - segment.trimStart().length;
    if (text.trim() !== '') {
      pieces.push({
        text: text.trimStart(),
        start: start + lead,
        spaceBefore: pieces.length > 0 && (lead > 0 || /\s$/u.test(title.slice(0, start))),
      });
    }
    start = end;
  }
  return pieces;
}

export function scriptContextOf(text: string): ScriptContext {
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return 'japanese';
  if (HANGUL.test(text)) return 'korean';
  if (/\p{Script=Han}/u.test(text)) return 'chinese';
  return 'default';
}

/** Offsets between BudouX's phrases. */
function phraseBoundaries(title: string, context: ScriptContext): Set<number> {
  const parser = phraseParser(
    context === 'japanese' ? 'ja' : TRADITIONAL.test(title) ? 'zh-hant' : 'zh-hans',
  );
  const boundaries = new Set<number>();
  let offset = 0;
  for (const phrase of parser.parse(title)) {
    offset += phrase.length;
    boundaries.add(offset);
  }
  return boundaries;
}

function charAt(text: string, p: number): string {
  return String.fromCodePoint(text.codePointAt(p) ?? 0);
}

function charBefore(text: string, p: number): string {
  if (p <= 0) return '';
  const low = text.charCodeAt(p - 1);
  return low >= 0xdc00 && low <= 0xdfff && p >= 2 ? text.slice(p - 2, p) : text.slice(p - 1, p);
}
