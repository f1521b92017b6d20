/** A run of title text that is never broken inside; lines break only between pieces. */
export interface TitlePiece {
  text: string;
  /** Joined to the previous piece by a space (false inside Chinese, Japanese or Thai text). */
  spaceBefore: boolean;
}

export type Direction = 'ltr' | 'rtl';

/** Which Han forms a title wants: Japanese kanji, or Chinese (also for Korean hanja and by default). */
export type ScriptContext = 'japanese' | 'korean' | 'chinese' | 'default';

const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
const LETTER = /\p{L}/u;
/** Scripts written without spaces between words: Han and kana break between any two characters. */
const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
/** Thai, Lao, Khmer and Myanmar break between words found by the segmenter's dictionary. */
const DICTIONARY = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/** Japanese and Chinese line-breaking rules (kinsoku): never at the start of a line… */
const NO_BREAK_BEFORE =
  /^[\u3001\u3002\uff0c\uff0e\uff1a\uff1b\uff1f\uff01\uff09\u300d\u300f\u3011\u3015\u3009\u300b\u201d\u2019\u30fc\u3041\u3043\u3045\u3047\u3049\u3063\u3083\u3085\u3087\u308e\u30a1\u30a3\u30a5\u30a7\u30a9\u30c3\u30e3\u30e5\u30e7\u30ee\u30f5\u30f6\u3005\u2026\u2025\u30fb!?.,:;)\]}%]/u;
/** …and never at the end of one. */
const NO_BREAK_AFTER = /[\uff08\u300c\u300e\u3010\u3014\u3008\u300a\u201c\u2018([{$#]$/u;

const wordSegmenter = new Intl.Segmenter('und', { granularity: 'word' });
const graphemeSegmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });

/** Whitespace collapsed, control characters dropped, ends trimmed. */
export function cleanTitle(title: string): string {
  return title
    .replace(/\p{Cc}/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** The title as set: cleaned, and in capitals when the style sets capitals. */
export function displayTitle(title: string, uppercase: boolean): string {
  const clean = cleanTitle(title);
  return uppercase ? clean.toUpperCase() : clean;
}

/** The paragraph direction, from the first letter (the Unicode bidi rule P2). */
export function directionOf(text: string): Direction {
  for (const char of text) {
    if (RTL_LETTER.test(char)) return 'rtl';
    if (LETTER.test(char)) return 'ltr';
  }
  return 'ltr';
}

/** A piece's own direction, or null when it has no letter (numbers, punctuation, emoji). */
export function pieceDirection(text: string): Direction | null {
  for (const char of text) {
    if (RTL_LETTER.test(char)) return 'rtl';
    if (LETTER.test(char)) return 'ltr';
  }
  return null;
}

export function scriptContextOf(text: string): ScriptContext {
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return 'japanese';
  if (/\p{Script=Hangul}/u.test(text)) return 'korean';
  if (/\p{Script=Han}/u.test(text)) return 'chinese';
  return 'default';
}

/**
 * Splits a title into unbreakable pieces: at spaces; between any two Han or kana characters, except
 * where the kinsoku rules forbid it; between the words of Thai and similar scripts.
 */
export function titlePieces(title: string): TitlePiece[] {
  const pieces: TitlePiece[] = [];
  for (const word of title.split(/\s+/u).filter(Boolean)) {
    const parts = breakableParts(word);
    parts.forEach((text, index) => pieces.push({ text, spaceBefore: index === 0 && pieces.length > 0 }));
  }
  return pieces;
}

function breakableParts(word: string): string[] {
  if (!IDEOGRAPHIC.test(word) && !DICTIONARY.test(word)) return [word];
  // Units: segmenter words, with Han and kana words cut into single characters.
  const units: string[] = [];
  for (const { segment } of wordSegmenter.segment(word)) {
    if (IDEOGRAPHIC.test(segment)) {
      for (const { segment: g } of graphemeSegmenter.segment(segment)) units.push(g);
    } else {
      units.push(segment);
    }
  }
  const parts: string[] = [];
  for (const unit of units) {
    const previous = parts.at(-1);
    const canBreak =
      previous !== undefined &&
      !NO_BREAK_BEFORE.test(unit) &&
      !NO_BREAK_AFTER.test(previous) &&
      // Breaks only where one side is ideographic or dictionary-broken; a Latin word stays whole.
      (isBreakable(unit) || isBreakable(previous));
    if (canBreak || previous === undefined) parts.push(unit);
    else parts[parts.length - 1] += unit;
  }
  return parts;
}

function isBreakable(unit: string): boolean {
  return IDEOGRAPHIC.test(unit) || DICTIONARY.test(unit);
}

/**
 * The visual order of a line's pieces (indices into `directions`): left to right for a left-to-right
 * paragraph, where runs of right-to-left words (an Arabic phrase) read right to left; right to left
 * for a right-to-left one, where runs of left-to-right pieces (a Latin name, a number) keep their own
 * order. Neutral pieces take the direction of the paragraph.
 */
export function visualOrder(directions: Array<Direction | null>, paragraph: Direction): number[] {
  const indices = directions.map((_, i) => i);
  if (paragraph === 'ltr') return reverseRuns(indices, (i) => directions[i] === 'rtl');
  const isLtr = (i: number) => directions[i] === 'ltr' || (directions[i] === null && isNumericRunMember(i));
  // A neutral piece between two left-to-right pieces belongs to their run ("Python 3 Course").
  function isNumericRunMember(i: number): boolean {
    let before = i - 1;
    while (before >= 0 && directions[before] === null) before--;
    let after = i + 1;
    while (after < directions.length && directions[after] === null) after++;
    return (
      before >= 0 && after < directions.length && directions[before] === 'ltr' && directions[after] === 'ltr'
    );
  }
  const out: number[] = [];
  let i = indices.length - 1;
  while (i >= 0) {
    if (!isLtr(i)) {
      out.push(i);
      i--;
      continue;
    }
    let start = i;
    while (start - 1 >= 0 && isLtr(start - 1)) start--;
    for (let j = start; j <= i; j++) out.push(j);
    i = start - 1;
  }
  return out;
}

/** Reverses every run of consecutive indices that `inRun` accepts, keeping the rest in place. */
function reverseRuns(indices: number[], inRun: (i: number) => boolean): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < indices.length) {
    if (!inRun(indices[i]!)) {
      out.push(indices[i++]!);
      continue;
    }
    let end = i;
    while (end + 1 < indices.length && inRun(indices[end + 1]!)) end++;
    for (let j = end; j >= i; j--) out.push(indices[j]!);
    i = end + 1;
  }
  return out;
}

const STOP_WORDS = new Set(
  (
    'a an and are as at be but by do does did for from has have had how i in is it its me my no not of on ' +
    'or so than that the their them then there these they this to too up us was we were what when where ' +
    'which who will with you your yours our out off over into just can get got go'
  ).split(' '),
);

/** Words that sell a title; thumbnail designers set these apart. */
const POWER_WORDS = new Set(
  (
    'best worst ultimate secret secrets never always every free new insane crazy huge biggest easy easiest ' +
    'fast fastest only truth stop mistake mistakes why vs versus hack hacks proven shocking finally actually ' +
    'must top real perfect simple million billion ai rich broke win dangerous beginner beginners pro ' +
    'complete everything nobody impossible first last ever epic massive tiny cheap expensive hidden ' +
    'banned illegal exposed revealed warning breaking live official world record'
  ).split(' '),
);

const NUMBER = /\p{N}/u;

function bare(text: string): string {
  return text.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();
}

/**
 * The pieces to emphasise: the best phrase of one to three adjacent pieces, scored by numbers, selling
 * words, words the author wrote in capitals, and quotes. Titles of fewer than three pieces, and titles
 * with nothing worth singling out, get none.
 */
export function keyPieces(pieces: TitlePiece[], original: string): Set<number> {
  if (pieces.length < 3) return new Set();
  const authorCaps = new Set(
    original
      .split(/\s+/u)
      .filter((w) => /\p{Lu}{2,}/u.test(w) && w === w.toUpperCase() && original !== original.toUpperCase())
      .map(bare),
  );
  const scores = pieces.map(({ text }) => {
    const word = bare(text);
    if (word === '') return 0;
    let score = 0;
    if (NUMBER.test(text)) score += 3;
    if (/[$€£¥%]/u.test(text)) score += 1;
    if (POWER_WORDS.has(word)) score += 2.5;
    if (authorCaps.has(word)) score += 2;
    if (/["“”«»]/u.test(text)) score += 2;
    if (/[!?]$/u.test(text)) score += 0.5;
    if (STOP_WORDS.has(word)) score = Math.min(score, 0.5);
    return score;
  });
  let best = -1;
  scores.forEach((s, i) => {
    if (s > 0 && (best < 0 || s > scores[best]!)) best = i;
  });
  if (best < 0 || scores[best]! < 2) return new Set();
  const chosen = new Set([best]);
  // Grow the phrase over neighbours that score too; a number also takes the word after it ("10 HOURS").
  const numeric = NUMBER.test(pieces[best]!.text);
  const joins = (i: number, after: boolean) =>
    i >= 0 &&
    i < pieces.length &&
    !STOP_WORDS.has(bare(pieces[i]!.text)) &&
    bare(pieces[i]!.text) !== '' &&
    (scores[i]! >= 2 || (numeric && after && i === best + 1));
  let left = best - 1;
  let right = best + 1;
  while (chosen.size < 3 && (joins(left, false) || joins(right, true))) {
    if (joins(right, true)) chosen.add(right++);
    else chosen.add(left--);
  }
  if (chosen.size * 2 > pieces.length) return new Set([best]);
  return chosen;
}
