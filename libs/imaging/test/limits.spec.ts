import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { boundImageMemory } from '../src/index.js';

describe('boundImageMemory', () => {
  it('turns the libvips operation cache off and gives each operation one thread', () => {
    sharp.cache(true);
    sharp.concurrency(4);
    boundImageMemory();
    expect(sharp.cache()).toMatchObject({ memory: { max: 0 }, items: { max: 0 }, files: { max: 0 } });
    expect(sharp.concurrency()).toBe(1);
  });
});
