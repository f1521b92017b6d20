import { describe, expect, it } from 'vitest';
import { titlePieces } from './line-breaks.js';
import { keyPieces } from './text.js';

describe('keyPieces', () => {
  const key = (title: string) => {
    const pieces = titlePieces(title.toUpperCase());
    return [...keyPieces(pieces, title)].sort((a, b) => a - b).map((i) => pieces[i]!.text);
  };
  it('picks numbers with their unit', () => {
    expect(key('I Survived 100 Days in Hardcore')).toEqual(['100', 'DAYS']);
  });
  it('picks selling words', () => {
    expect(key('The Ultimate Guide to Sourdough')).toEqual(['ULTIMATE']);
  });
  it('picks what the author wrote in capitals', () => {
    expect(key('This Changed my LIFE forever')).toEqual(['LIFE']);
  });
  it('picks nothing in a plain title, or in one or two words', () => {
    expect(key('My morning routine in Paris')).toEqual([]);
    expect(key('Best pizza')).toEqual([]);
  });
  it('never emphasises more than half the title', () => {
    const pieces = titlePieces('100 BEST FREE NEW');
    expect(keyPieces(pieces, '100 best free new').size).toBeLessThanOrEqual(2);
  });
});
