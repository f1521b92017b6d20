import { describe, expect, it } from 'vitest';
import { caseLocale, cleanTitle, displayTitle } from './case.js';

describe('cleaning a title', () => {
  it('collapses whitespace, drops control characters and trims', () => {
    expect(cleanTitle('  a\t\tb\u0007c \n d ')).toBe('a b c d');
  });
});

describe('setting a title in capitals', () => {
  it.each([
    ['Straße of  ideas', 'STRASSE OF IDEAS'],
    ['Ελληνική κουζίνα', 'ΕΛΛΗΝΙΚΗ ΚΟΥΖΙΝΑ'],
    ['Άρτος και νερό', 'ΑΡΤΟΣ ΚΑΙ ΝΕΡΟ'],
    ['İstanbul’da bir gün: iki şehir', 'İSTANBUL’DA BİR GÜN: İKİ ŞEHİR'],
    ['Bakı və ilk gün', 'BAKI VƏ İLK GÜN'],
    ['Read https://example.com/r now', 'READ https://example.com/r NOW'],
    ['Visit example.com today', 'VISIT example.com TODAY'],
    ['Follow @thumbforge and #buildinpublic', 'FOLLOW @thumbforge AND #buildinpublic'],
    ['Why useEffect runs twice', 'WHY useEffect RUNS TWICE'],
    ['my_var and print() explained', 'my_var AND print() EXPLAINED'],
    ['Привет мир', 'ПРИВЕТ МИР'],
    ['Tiếng Việt cho người mới', 'TIẾNG VIỆT CHO NGƯỜI MỚI'],
  ])('%s → %s', (title, set) => {
    expect(displayTitle(title, true)).toBe(set);
  });

  it('leaves the case alone when the style does not set capitals', () => {
    expect(displayTitle('Straße of  ideas', false)).toBe('Straße of ideas');
  });

  it.each([
    ['Ελληνικά', 'el'],
    ['İzmir gezisi', 'tr'],
    ['Azərbaycan', 'az'],
    ['Plain English', undefined],
  ])('reads the case rules of %s as %s', (title, locale) => {
    expect(caseLocale(title)).toBe(locale);
  });
});
