import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { boundLibvips, boundLibvipsForRendering, LIBVIPS_CACHE } from '../src/index.js';

afterEach(() => {
  sharp.cache(true);
  sharp.concurrency(0);
});

describe('libvips bounds', () => {
  it.each([
    [1, 1],
    [2, 2],
    [16, 4],
  ])('a checking process on %i cores: a small cache and %i threads', (cores, threads) => {
    boundLibvips(cores);
    expect(sharp.cache()).toMatchObject({
      memory: { max: LIBVIPS_CACHE.memory },
      items: { max: LIBVIPS_CACHE.items },
      files: { max: 0 },
    });
    expect(sharp.concurrency()).toBe(threads);
  });

  it('a rendering process: no operation cache and one thread per operation', () => {
    sharp.concurrency(4);
    boundLibvipsForRendering();
    expect(sharp.cache()).toMatchObject({ memory: { max: 0 }, items: { max: 0 }, files: { max: 0 } });
    expect(sharp.concurrency()).toBe(1);
  });
});
