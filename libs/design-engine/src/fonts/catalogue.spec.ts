import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emojiSvgFile, FONT_IDS, FONTS } from './catalogue.js';

describe('bundled fonts', () => {
  it.each(FONT_IDS)('%s is a TrueType file installed from npm', (id) => {
    const font = FONTS[id];
    expect(font.id).toBe(id);
    expect(font.file).toMatch(/node_modules\/@expo-google-fonts\/.+\.ttf$/);
    expect(existsSync(font.file)).toBe(true);
    // sfnt version 1.0: a TrueType outline font.
    expect(readFileSync(font.file).readUInt32BE(0)).toBe(0x00010000);
  });
});

describe('emojiSvgFile', () => {
  it.each([
    ['🔥', '1f525.svg'],
    ['❤️', '2764.svg'],
    ['1️⃣', '31-20e3.svg'],
    ['🇯🇵', '1f1ef-1f1f5.svg'],
    ['👨‍👩‍👧', '1f468-200d-1f469-200d-1f467.svg'],
    ['👨‍👩‍👧‍👦', '1f468-200d-1f469-200d-1f467-200d-1f466.svg'],
    ['👍🏽', '1f44d-1f3fd.svg'],
  ])('finds %s as %s', (emoji, file) => {
    const path = emojiSvgFile(emoji)!;
    expect(path.endsWith(`/${file}`)).toBe(true);
    expect(readFileSync(path, 'utf8')).toContain('<svg');
  });

  it('has nothing for text', () => {
    expect(emojiSvgFile('A')).toBeNull();
  });
});
