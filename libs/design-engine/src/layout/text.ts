import type { TitlePiece } from './line-breaks.js';

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
