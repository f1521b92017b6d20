import { deflateRawSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { random } from './background-scene.js';
import { inflateInto, inflatesInPlace } from './inflate-into.js';

/** Pixels with a gradient and noise, the size of a small canvas: deflate shrinks them, not to nothing. */
function pixels(bytes: number): Buffer {
  const noise = random(1);
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) out[i] = ((i >> 6) + Math.floor(noise() * 8)) & 255;
  return out;
}

const BYTES = 320 * 180 * 3;
const source = pixels(BYTES);
const packed = deflateRawSync(source, { level: 1 });

afterEach(() => vi.restoreAllMocks());

describe.each([
  { path: 'in place', inPlace: true },
  { path: 'through a fresh buffer', inPlace: false },
])('inflateInto, $path', ({ inPlace }) => {
  it('fills a buffer full of junk with exactly the packed pixels, call after call', async () => {
    const target = Buffer.alloc(BYTES, 0xa5);
    for (let round = 0; round < 3; round++) {
      target.fill(round);
      await inflateInto(packed, target, { inPlace });
      expect(target.equals(source)).toBe(true);
    }
  });

  it.each([
    { bytes: 'corrupt', input: () => Buffer.from(packed).fill(0xff, 10, 40), target: BYTES },
    { bytes: 'truncated', input: () => packed.subarray(0, packed.length >> 1), target: BYTES },
    { bytes: 'longer than the target', input: () => packed, target: BYTES - 3 },
    { bytes: 'shorter than the target', input: () => packed, target: BYTES + 3 },
  ])('rejects $bytes bytes, and the next call still works', async ({ input, target }) => {
    await expect(inflateInto(input(), Buffer.alloc(target), { inPlace })).rejects.toThrow(/packed bytes/);
    const again = Buffer.alloc(BYTES);
    await inflateInto(packed, again, { inPlace });
    expect(again.equals(source)).toBe(true);
  });
});

describe('inflateInto on the pinned Node.js', () => {
  it('writes in place and allocates no buffer for the pixels', async () => {
    expect(inflatesInPlace()).toBe(true);
    const target = Buffer.alloc(BYTES);
    await inflateInto(packed, target);
    const allocations = [
      vi.spyOn(Buffer, 'allocUnsafe'),
      vi.spyOn(Buffer, 'allocUnsafeSlow'),
      vi.spyOn(Buffer, 'alloc'),
    ];
    target.fill(0);
    await inflateInto(packed, target);
    expect(target.equals(source)).toBe(true);
    for (const spy of allocations) expect(spy).not.toHaveBeenCalled();
  });

  it('allocates one buffer, not two, through the public call', async () => {
    const spy = vi.spyOn(Buffer, 'allocUnsafe');
    await inflateInto(packed, Buffer.alloc(BYTES), { inPlace: false });
    const large = spy.mock.calls.filter(([size]) => size >= BYTES);
    expect(large).toHaveLength(1);
  });
});
