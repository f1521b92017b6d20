import { describe, expect, it } from 'vitest';
import { scriptContextOf, titlePieces } from './line-breaks.js';

const texts = (title: string) => titlePieces(title).map((p) => p.text);

describe('titlePieces', () => {
  it('splits at spaces, with each piece at its offset', () => {
    expect(titlePieces('Best pizza ever')).toEqual([
      { text: 'Best', start: 0, spaceBefore: false },
      { text: 'pizza', start: 5, spaceBefore: true },
      { text: 'ever', start: 11, spaceBefore: true },
    ]);
  });
  it('breaks after hyphens and slashes where UAX #14 allows it', () => {
    expect(texts('state-of-the-art tips')).toEqual(['state-', 'of-', 'the-', 'art', 'tips']);
  });
  it('breaks Japanese between phrases, never inside a word', () => {
    const pieces = texts('隠れた名店を巡る旅');
    expect(pieces.join('')).toBe('隠れた名店を巡る旅');
    expect(pieces).toContain('隠れた');
    expect(pieces).not.toContain('隠');
  });
  it('breaks Chinese between phrases', () => {
    const pieces = texts('今年最值得买的手机推荐');
    expect(pieces.join('')).toBe('今年最值得买的手机推荐');
    expect(pieces.some((p) => p.includes('最值得'))).toBe(true);
    expect(pieces.every((p) => !p.startsWith('得'))).toBe(true);
  });
  it('keeps closing punctuation with the text before it (kinsoku)', () => {
    for (const piece of titlePieces('東京で、ちょっと休憩。最高の一日')) {
      expect(piece.text).not.toMatch(/^[、。ょっ]/u);
    }
  });
  it('keeps Latin words whole inside Japanese text', () => {
    expect(texts('iPhoneで撮影').some((p) => p.includes('iPhone'))).toBe(true);
  });
  it('breaks Korean only between words', () => {
    expect(texts('오늘의 요리 레시피')).toEqual(['오늘의', '요리', '레시피']);
  });
  it.each(['สวัสดีครับวันนี้', 'ສະບາຍດີທຸກຄົນ', 'សួស្តីពិភពលោក', 'မင်္ဂလာပါကမ္ဘာ'])(
    'breaks %s between dictionary words',
    (title) => {
      const pieces = texts(title);
      expect(pieces.length).toBeGreaterThan(1);
      expect(pieces.join('')).toBe(title);
    },
  );
  it('keeps Arabic, Hebrew, Devanagari and Bengali words whole', () => {
    expect(texts('تعلم البرمجة')).toEqual(['تعلم', 'البرمجة']);
    expect(texts('नमस्ते दुनिया')).toEqual(['नमस्ते', 'दुनिया']);
    expect(texts('রান্নার সহজ রেসিপি')).toEqual(['রান্নার', 'সহজ', 'রেসিপি']);
  });
  it('keeps an emoji sequence in one piece', () => {
    expect(texts('Family 👨‍👩‍👧‍👦 time')).toEqual(['Family', '👨‍👩‍👧‍👦', 'time']);
  });
  it('never loses a character', () => {
    for (const title of ['Hi 👋🏽 there!', '我的第一次旅行：东京', 'ไปเที่ยวญี่ปุ่น 7 วัน', 'مرحبا 2024 بالعالم']) {
      const pieces = titlePieces(title);
      expect(pieces.map((p) => (p.spaceBefore ? ' ' : '') + p.text).join('')).toBe(title);
      for (const p of pieces) expect(title.slice(p.start, p.start + p.text.length)).toBe(p.text);
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
