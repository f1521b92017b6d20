import bidiModule from 'bidi-js';

export type Direction = 'ltr' | 'rtl';

// bidi-js is CommonJS exporting the factory itself, while its typings declare an ES default export.
const bidiFactory = bidiModule as unknown as typeof bidiModule.default;
const bidi = bidiFactory();

/** The Unicode Bidirectional Algorithm's result for a title: one embedding level per UTF-16 unit. */
export interface TitleBidi {
  levels: Uint8Array;
  /** The paragraph direction, from the first strong letter (rule P2). */
  direction: Direction;
}

export function titleBidi(title: string): TitleBidi {
  const { levels, paragraphs } = bidi.getEmbeddingLevels(title);
  return { levels, direction: (paragraphs[0]?.level ?? 0) % 2 === 1 ? 'rtl' : 'ltr' };
}

/** A stretch of a piece at one embedding level: shaped in one direction (right to left when odd). */
export interface Fragment {
  text: string;
  /** UTF-16 offset in the title. */
  start: number;
  level: number;
}

/** Cuts `text` (at `start` in the title) where its embedding level changes. */
export function fragmentsOf(text: string, start: number, levels: ArrayLike<number>): Fragment[] {
  const fragments: Fragment[] = [];
  for (let i = 0; i < text.length; i++) {
    const level = levels[start + i] ?? 0;
    const last = fragments.at(-1);
    if (last && last.level === level) last.text += text[i];
    else fragments.push({ text: text[i]!, start: start + i, level });
  }
  return fragments;
}

/**
 * Rule L2 over units of one level each (fragments and the spaces between them): from the highest
 * level down to the lowest odd one, every run of units at that level or above is reversed. Returns
 * the units' indices from left to right.
 */
export function visualOrder(levels: readonly number[]): number[] {
  const order = levels.map((_, i) => i);
  if (levels.length === 0) return order;
  const highest = Math.max(...levels);
  const lowestOdd = Math.min(...levels.map((l) => (l % 2 === 1 ? l : l + 1)));
  for (let level = highest; level >= lowestOdd; level--) {
    let i = 0;
    while (i < order.length) {
      if (levels[order[i]!]! < level) {
        i++;
        continue;
      }
      let end = i;
      while (end + 1 < order.length && levels[order[end + 1]!]! >= level) end++;
      order.splice(i, end - i + 1, ...order.slice(i, end + 1).reverse());
      i = end + 1;
    }
  }
  return order;
}
