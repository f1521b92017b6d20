import { CATEGORIES, FORMATS } from '@thumbforge/contracts';
import { describe, expect, it } from 'vitest';
import { jobSpec } from '@thumbforge/design-engine/testing';
import { aspectLabel, buildPrompt, requestSize } from './prompt.js';

const none = { hasPhoto: false, referenceCount: 0, hasLogo: false };

describe('buildPrompt', () => {
  it('quotes the title exactly and names the frame of every format', () => {
    const aspects = { youtube: '16:9', x: '16:9', instagram: '1:1', blogpost: '1.91:1', linkedin: '1.91:1' };
    for (const format of FORMATS) {
      const prompt = buildPrompt(jobSpec({ format, title: 'Café «naïve» 東京' }), none);
      expect(prompt).toContain('"Café «naïve» 東京"');
      expect(prompt).toContain(`, ${aspects[format]})`);
    }
    expect(buildPrompt(jobSpec({ format: 'youtube', model: 'hd' }), none)).toContain('(2560x1440, 16:9)');
  });

  it('gives every category its own tone hint, and auto a neutral one', () => {
    const tones = CATEGORIES.map((category) => {
      const line = buildPrompt(jobSpec({ category }), none)
        .split('\n')
        .find((l) => l.startsWith('Tone') || l.startsWith('Choose'));
      return line;
    });
    expect(new Set(tones).size).toBe(CATEGORIES.length);
    expect(tones[0]).toMatch(/^Choose a visual tone/);
  });

  it('asks for 80 to 100 percent fidelity to the references, which outrank the tone hint', () => {
    const prompt = buildPrompt(jobSpec({ category: 'travel' }), { ...none, referenceCount: 2 });
    expect(prompt).toContain('The 2 input images are style references');
    expect(prompt).toContain('80 to 100 percent fidelity');
    expect(prompt).toContain('The style references take precedence');
    expect(buildPrompt(jobSpec(), none)).not.toContain('fidelity');
  });

  it('puts the photo first and counts the references after it', () => {
    const prompt = buildPrompt(jobSpec(), { ...none, hasPhoto: true, referenceCount: 1 });
    expect(prompt).toContain('The first input image is the creator');
    expect(prompt).toContain('The other 1 input image is');
  });

  it('keeps the logo corner clear and never asks for a logo', () => {
    const job = jobSpec({ logo: { key: 'l.png', position: 'top-left', size: 0.2, dropShadow: false } });
    const prompt = buildPrompt(job, { ...none, hasLogo: true });
    expect(prompt).toContain('Leave the top left corner free');
    expect(prompt).toContain('Do not draw any logo');
    expect(buildPrompt(jobSpec(), none)).not.toContain('Leave the');
  });
});

describe('requestSize and aspectLabel', () => {
  it('asks each model family for a size it supports', () => {
    expect(requestSize('gpt-image-1', 1280, 720)).toBe('1536x1024');
    expect(requestSize('dall-e-3', 1280, 720)).toBe('1792x1024');
    expect(requestSize('dall-e-2', 1280, 720)).toBe('1024x1024');
    expect(requestSize('gpt-image-1', 1024, 1024)).toBe('1024x1024');
    expect(requestSize('flux-schnell', 1200, 630)).toBe('1536x1024');
  });

  it('names the aspects people know', () => {
    expect(aspectLabel(1280, 720)).toBe('16:9');
    expect(aspectLabel(2048, 2048)).toBe('1:1');
    expect(aspectLabel(1200, 627)).toBe('1.91:1');
    expect(aspectLabel(1000, 400)).toBe('2.50:1');
  });
});
