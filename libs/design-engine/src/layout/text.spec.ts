import { describe, expect, it } from 'vitest';
import {
  cleanTitle,
  directionOf,
  displayTitle,
  keyPieces,
  pieceDirection,
  scriptContextOf,
  titlePieces,
  visualOrder,
} from './text.js';

const texts = (title: string) => titlePieces(title).map((p) => p.text);

describe('cleaning and setting a title', () => {
  it('collapses whitespace, drops control characters and trims', () => {
    expect(cleanTitle('  a\t\tb\u0007c \n d ')).toBe('a b c d');
  });
  it('sets capitals only when the style does', () => {
    expect(displayTitle('Straße of  ideas', true)).toBe('STRASSE OF IDEAS');
    expect(displayTitle('Straße of  ideas', false)).toBe('Straße of ideas');
  });
});

describe('direction', () => {
  it.each([
    ['Hello', 'ltr'],
    ['مرحبا بالعالم', 'rtl'],
    ['שלום עולם', 'rtl'],
    ['2024 مرحبا', 'rtl'],
    ['123', 'ltr'],
  ] as const)('%s is %s', (text, direction) => {
    expect(directionOf(text)).toBe(direction);
  });
  it('has no direction of its own for numbers and emoji', () => {
    expect(pieceDirection('2024')).toBeNull();
    expect(pieceDirection('🔥')).toBeNull();
  });
});

describe('titlePieces', () => {
  it('splits at spaces', () => {
    expect(titlePieces('Best pizza ever')).toEqual([
      { text: 'Best', spaceBefore: false },
      { text: 'pizza', spaceBefore: true },
      { text: 'ever', spaceBefore: true },
    ]);
  });
  it('breaks Chinese between characters, without spaces', () => {
    const pieces = titlePieces('我学会了做饭');
    expect(pieces.map((p) => p.text)).toEqual(['我', '学', '会', '了', '做', '饭']);
    expect(pieces.every((p) => !p.spaceBefore)).toBe(true);
  });
  it('keeps closing punctuation and small kana with the character before (kinsoku)', () => {
    expect(texts('東京、ちょっと。')).toEqual(['東', '京、', 'ちょっ', 'と。']);
  });
  it('keeps an opening bracket with the character after it', () => {
    expect(texts('「最高」の料理')).toEqual(['「最', '高」', 'の', '料', '理']);
  });
  it('keeps Latin words whole inside Japanese text', () => {
    expect(texts('iPhoneで撮影')).toEqual(['iPhone', 'で', '撮', '影']);
  });
  it('breaks Thai between dictionary words', () => {
    const pieces = texts('สวัสดีครับวันนี้');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe('สวัสดีครับวันนี้');
  });
  it('keeps Arabic, Hebrew and Devanagari words whole', () => {
    expect(texts('تعلم البرمجة')).toEqual(['تعلم', 'البرمجة']);
    expect(texts('नमस्ते दुनिया')).toEqual(['नमस्ते', 'दुनिया']);
  });
  it('never loses a character', () => {
    for (const title of ['Hi 👋🏽 there!', '我的第一次旅行：东京', 'ไปเที่ยวญี่ปุ่น 7 วัน', 'مرحبا 2024 بالعالم']) {
      expect(
        titlePieces(title)
          .map((p) => (p.spaceBefore ? ' ' : '') + p.text)
          .join(''),
      ).toBe(title);
    }
  });
});

describe('scriptContextOf', () => {
  it.each([
    ['今日はラーメン', 'japanese'],
    ['오늘의 요리', 'korean'],
    ['今天吃什么', 'chinese'],
    ['Pizza', 'default'],
  ] as const)('%s → %s', (text, context) => {
    expect(scriptContextOf(text)).toBe(context);
  });
});

describe('visualOrder', () => {
  it('is the logical order for a left-to-right paragraph', () => {
    expect(visualOrder(['ltr', 'rtl', 'ltr'], 'ltr')).toEqual([0, 1, 2]);
  });
  it('reads an embedded right-to-left phrase right to left', () => {
    // "Learn مرحبا بالعالم today": the Arabic words swap places.
    expect(visualOrder(['ltr', 'rtl', 'rtl', 'ltr'], 'ltr')).toEqual([0, 2, 1, 3]);
  });
  it('reverses a right-to-left paragraph', () => {
    expect(visualOrder(['rtl', 'rtl', 'rtl'], 'rtl')).toEqual([2, 1, 0]);
  });
  it('keeps an embedded left-to-right run in its own order', () => {
    // "تعلم Python 3 Course اليوم": the Latin run (with the number inside it) reads left to right.
    expect(visualOrder(['rtl', 'ltr', null, 'ltr', 'rtl'], 'rtl')).toEqual([4, 1, 2, 3, 0]);
  });
  it('puts a lone number where the paragraph direction puts it', () => {
    expect(visualOrder(['rtl', null, 'rtl'], 'rtl')).toEqual([2, 1, 0]);
  });
});

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
