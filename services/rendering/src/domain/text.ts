/** A run of title text that is never broken inside; lines break only between pieces. */
export interface TitlePiece {
  text: string;
  /** Joined to the previous piece by a space (false inside Chinese, Japanese or Thai text). */
  spaceBefore: boolean;
}

export type Direction = 'ltr' | 'rtl';

const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
const LETTER = /\p{L}/u;
/** Scripts written without spaces between words: their word boundaries come from the segmenter. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/** Ideographic punctuation and full-width forms: a line may break after them too. */
const UNSPACED_PUNCTUATION = /[\u3000-\u303f\uff00-\uffef]/u;

const wordSegmenter = new Intl.Segmenter('und', { granularity: 'word' });

/** Whitespace collapsed and capitals, as thumbnails set their titles. */
export function displayTitle(title: string): string {
  return title.replace(/\s+/gu, ' ').trim().toUpperCase();
}

/** The paragraph direction, from the first letter (the Unicode bidi rule P2). */
export function directionOf(text: string): Direction {
  for (const char of text) {
    if (RTL_LETTER.test(char)) return 'rtl';
    if (LETTER.test(char)) return 'ltr';
  }
  return 'ltr';
}

/**
 * Splits a title into unbreakable pieces: at spaces, and between words of scripts written without
 * spaces. Punctuation stays attached to the word before it, so a line never starts with "!" or ",".
 */
export function titlePieces(title: string): TitlePiece[] {
  const pieces: TitlePiece[] = [];
  for (const word of title.split(/\s+/u).filter(Boolean)) {
    const parts: string[] = [];
    let current = '';
    for (const { segment, isWordLike } of wordSegmenter.segment(word)) {
      const previous = lastChar(current);
      if (
        current !== '' &&
        isWordLike === true &&
        UNSPACED.test(segment) &&
        (UNSPACED.test(previous) || UNSPACED_PUNCTUATION.test(previous))
      ) {
        parts.push(current);
        current = '';
      }
      current += segment;
    }
    parts.push(current);
    parts.forEach((text, index) => pieces.push({ text, spaceBefore: index === 0 && pieces.length > 0 }));
  }
  return pieces;
}

function lastChar(text: string): string {
  return Array.from(text).at(-1) ?? '';
}
