import { CATEGORIES } from '@thumbforge/contracts';
import { FONT_IDS } from '../fonts/catalogue.js';
import { describe, expect, it } from 'vitest';
import { contrastRatio, parseHex } from './colour.js';
import { hashTitle, resolveCategory } from './categories.js';
import { CONCRETE_CATEGORIES, STYLES } from './styles.js';

const ratio = (a: string, b: string) => contrastRatio(parseHex(a), parseHex(b));

describe('styles', () => {
  it('cover the 12 concrete categories of the contract', () => {
    expect([...CONCRETE_CATEGORIES].sort()).toEqual(CATEGORIES.filter((c) => c !== 'auto').sort());
  });

  it.each(CONCRETE_CATEGORIES)('%s: every palette reads at 4.5:1 or more (WCAG)', (category) => {
    const style = STYLES[category];
    for (const p of style.palettes) {
      expect(ratio(p.ink, p.base)).toBeGreaterThanOrEqual(4.5);
      expect(ratio(p.plateInk, p.plate)).toBeGreaterThanOrEqual(4.5);
      if (style.treatment.emphasis === 'colour')
        expect(ratio(p.emphasisInk, p.base)).toBeGreaterThanOrEqual(4.5);
      if (style.treatment.emphasis === 'marker')
        expect(ratio(p.emphasisInk, p.plate)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it.each(CONCRETE_CATEGORIES)('%s: light styles set dark text, dark styles light text', (category) => {
    const style = STYLES[category];
    for (const p of style.palettes) {
      const inkIsLight =
        contrastRatio(parseHex(p.ink), parseHex('#000000')) >
        contrastRatio(parseHex(p.ink), parseHex('#ffffff'));
      expect(inkIsLight).toBe(!style.light);
    }
  });

  it('use bundled fonts only', () => {
    for (const style of Object.values(STYLES)) {
      for (const font of [style.font, style.condensedFont, style.emphasisFont]) {
        if (font) expect(FONT_IDS).toContain(font);
      }
    }
  });

  it('give each category its own look: typeface, scene and colours', () => {
    const looks = new Set(CONCRETE_CATEGORIES.map((c) => `${STYLES[c].background}`));
    expect(looks.size).toBe(12);
    const palettes = new Set(
      CONCRETE_CATEGORIES.flatMap((c) => STYLES[c].palettes.map((p) => p.base + p.far)),
    );
    expect(palettes.size).toBe(24);
    expect(new Set(CONCRETE_CATEGORIES.map((c) => STYLES[c].font)).size).toBeGreaterThanOrEqual(9);
  });
});

describe('auto', () => {
  it.each([
    ['I Tried Every AI Coding Tool', 'tech-saas'],
    ['How I Invest My Salary in Stocks', 'business-finance'],
    ['Learn Spanish Grammar Step by Step', 'education-tutorial'],
    ['30 Day Ab Workout Challenge at the Gym', 'fitness-wellness'],
    ['A Doctor Explains Sleep and Heart Health', 'medical-healthcare'],
    ['My Morning Routine Vlog', 'lifestyle-vlog'],
    ['Easy Chicken Pasta Recipe', 'food-cooking'],
    ['Backpacking Japan for Two Weeks', 'travel'],
    ['Minecraft Hardcore Speedrun', 'gaming'],
    ['Funny Prank Compilation', 'entertainment-comedy'],
    ['Breaking News: Election Results Explained', 'news-commentary'],
    ['Designing a Logo in Figma', 'creative-design'],
  ] as const)('infers the category of %j', (title, category) => {
    expect(resolveCategory('auto', title)).toBe(category);
  });

  it('falls back to a stable pick by the title when no word gives a clue', () => {
    const title = 'Zxq Plob';
    expect(resolveCategory('auto', title)).toBe(CONCRETE_CATEGORIES[hashTitle(title) % 12]);
    expect(resolveCategory('auto', title)).toBe(resolveCategory('auto', title));
  });

  it('leaves an explicit category alone', () => {
    expect(resolveCategory('gaming', 'Easy Chicken Pasta Recipe')).toBe('gaming');
  });

  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
  ])('hashTitle(%j) is FNV-1a', (text, hash) => {
    expect(hashTitle(text)).toBe(hash);
  });
});
