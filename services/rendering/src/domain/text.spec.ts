import { describe, expect, it } from 'vitest';
import { directionOf, displayTitle, titlePieces } from './text.js';

describe('displayTitle', () => {
  it.each([
    ['  hello   world \n again ', 'HELLO WORLD AGAIN'],
    ['Straße', 'STRASSE'],
    ['مرحبا', 'مرحبا'],
  ])('%j becomes %j', (input, output) => {
    expect(displayTitle(input)).toBe(output);
  });
});

describe('directionOf', () => {
  it.each([
    ['HELLO', 'ltr'],
    ['مرحبا بالعالم', 'rtl'],
    ['שלום', 'rtl'],
    ['2026: مرحبا', 'rtl'],
    ['iPhone مرحبا', 'ltr'],
    ['123 !!!', 'ltr'],
  ] as const)('%s is %s', (text, direction) => {
    expect(directionOf(text)).toBe(direction);
  });
});

describe('titlePieces', () => {
  const texts = (title: string) => titlePieces(title).map((p) => (p.spaceBefore ? ` ${p.text}` : p.text));

  it.each([
    ['HELLO, WORLD!', ['HELLO,', ' WORLD!']],
    ["DON'T STOP", ["DON'T", ' STOP']],
    ['30-DAY PLAN', ['30-DAY', ' PLAN']],
    ['日本語のテキスト', ['日本語', 'の', 'テキスト']],
    ['你好世界。今天', ['你好', '世界。', '今天']],
    ['ภาษาไทยง่าย', ['ภาษา', 'ไทย', 'ง่าย']],
    ['HELLO 世界', ['HELLO', ' 世界']],
    ['', []],
  ])('%j breaks into %j', (title, pieces) => {
    expect(texts(title)).toEqual(pieces);
  });
});
