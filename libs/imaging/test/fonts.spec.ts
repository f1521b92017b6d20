import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DISPLAY_FONT } from '../src/fonts.js';

describe('the placeholder face', () => {
  it('is Anton, a TrueType file installed from npm', () => {
    expect(DISPLAY_FONT.family).toBe('Anton');
    expect(DISPLAY_FONT.file).toMatch(/node_modules\/@expo-google-fonts\/anton\/.+\.ttf$/);
    expect(existsSync(DISPLAY_FONT.file)).toBe(true);
    // sfnt version 1.0: a TrueType outline font.
    expect(readFileSync(DISPLAY_FONT.file).readUInt32BE(0)).toBe(0x00010000);
  });
});
