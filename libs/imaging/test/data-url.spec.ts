import { LIMITS } from '@thumbforge/contracts';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatByteSize, parseImageDataUrl, sniffImageType } from '../src/index.js';
import { compressedBomb, declaredSize } from '../src/testing/index.js';

const opts = { field: 'photoImage', maxBytes: LIMITS.photoMaxBytes };

function dataUrl(mime: string, bytes: Buffer): string {
  return `data:${mime};base64,${bytes.toString('base64')}`;
}

/** A small picture with detail, so each encoder produces a real multi-block file. */
function picture(width = 320, height = 180) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#1e3a8a"/>
    <circle cx="${width / 2}" cy="${height / 2}" r="${height / 3}" fill="#f97316"/>
    <rect x="10" y="10" width="${width / 4}" height="${height / 5}" fill="#22c55e"/></svg>`;
  return sharp(Buffer.from(svg));
}

let png: Buffer;
let jpeg: Buffer;
let webp: Buffer;

beforeAll(async () => {
  png = await picture().png().toBuffer();
  jpeg = await picture().jpeg({ quality: 85 }).toBuffer();
  webp = await picture().webp({ quality: 80 }).toBuffer();
});

describe('parseImageDataUrl: valid images', () => {
  it.each([
    ['image/png', () => png, 'image/png'],
    ['image/jpeg', () => jpeg, 'image/jpeg'],
    ['image/jpg', () => jpeg, 'image/jpeg'],
    ['image/webp', () => webp, 'image/webp'],
    ['IMAGE/PNG', () => png, 'image/png'],
  ])('accepts %s and reports the real type and size', async (declared, bytes, mime) => {
    const result = await parseImageDataUrl(dataUrl(declared, bytes()), opts);
    expect(result).toEqual({ ok: true, bytes: bytes(), mime, width: 320, height: 180 });
  });

  it('reports the sniffed type when the declared one is another supported type', async () => {
    const result = await parseImageDataUrl(dataUrl('image/png', jpeg), opts);
    expect(result).toMatchObject({ ok: true, mime: 'image/jpeg' });
  });

  it('accepts an image exactly at the size cap', async () => {
    const result = await parseImageDataUrl(dataUrl('image/png', png), {
      field: 'logoImage',
      maxBytes: png.length,
    });
    expect(result.ok).toBe(true);
  });

  it('reports the displayed size of a JPEG rotated by its EXIF orientation', async () => {
    const rotated = await picture(300, 100).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const result = await parseImageDataUrl(dataUrl('image/jpeg', rotated), opts);
    expect(result).toMatchObject({ ok: true, width: 100, height: 300 });
  });
});

describe('parseImageDataUrl: refusals', () => {
  const prefixMessage =
    'photoImage must be a data URL of a PNG, JPEG or WebP image (data:image/png;base64,...)';

  it.each([
    ['a gif mime', () => dataUrl('image/gif', png)],
    ['an svg mime', () => `data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}`],
    ['no base64 marker', () => `data:image/png,${png.toString('base64')}`],
    ['a bare base64 string', () => png.toString('base64')],
    ['text before the prefix', () => ` ${dataUrl('image/png', png)}`],
    ['a URL', () => 'https://example.com/a.png'],
  ])('refuses %s', async (_name, input) => {
    expect(await parseImageDataUrl(input(), opts)).toEqual({
      ok: false,
      code: 'INVALID_IMAGE',
      message: prefixMessage,
    });
  });

  it('refuses a value that is not a string', async () => {
    const result = await parseImageDataUrl(42 as unknown as string, opts);
    expect(result).toEqual({ ok: false, code: 'INVALID_IMAGE', message: 'photoImage must be a string' });
  });

  it('refuses empty data', async () => {
    expect(await parseImageDataUrl('data:image/png;base64,', opts)).toMatchObject({
      ok: false,
      code: 'INVALID_IMAGE',
      message: 'photoImage is empty',
    });
  });

  it.each([
    ['a character outside the alphabet', (b64: string) => `${b64.slice(0, 40)}*${b64.slice(41)}`],
    ['the URL-safe alphabet', (b64: string) => `${b64.slice(0, 40)}-_${b64.slice(42)}`],
    ['embedded whitespace', (b64: string) => `${b64.slice(0, 40)}\n${b64.slice(40)}`],
    ['truncated base64 (length not a multiple of 4)', (b64: string) => b64.slice(0, b64.length - 2)],
    ['padding in the middle', (b64: string) => `${b64.slice(0, 8)}====${b64.slice(12)}`],
    ['three padding characters', (b64: string) => `${b64.slice(0, -4)}A===`],
    ['non-zero bits before the padding', () => 'iVBORw0KGgp='],
  ])('refuses base64 with %s', async (_name, mangle) => {
    const result = await parseImageDataUrl(`data:image/png;base64,${mangle(png.toString('base64'))}`, opts);
    expect(result).toEqual({ ok: false, code: 'INVALID_IMAGE', message: 'photoImage is not valid base64' });
  });

  it.each([
    ['text', () => Buffer.from('hello world, this is not an image at all')],
    ['random bytes', () => Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37 + 11) % 256))],
    ['a GIF', () => Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')],
    ['a PNG signature followed by garbage', () => Buffer.concat([png.subarray(0, 8), Buffer.alloc(200, 7)])],
  ])('refuses %s sent with an image mime', async (_name, bytes) => {
    const result = await parseImageDataUrl(dataUrl('image/png', bytes()), opts);
    expect(result).toEqual({
      ok: false,
      code: 'INVALID_IMAGE',
      message: 'photoImage is not a decodable PNG, JPEG or WebP image',
    });
  });

  it.each([
    ['PNG', 'image/png', () => png],
    ['JPEG', 'image/jpeg', () => jpeg],
    ['WebP', 'image/webp', () => webp],
  ])('refuses a truncated %s file', async (_name, mime, bytes) => {
    const full = bytes();
    // Cut to a multiple of 3 bytes so the base64 itself stays well-formed: only the image is truncated.
    const cut = full.subarray(0, Math.floor((full.length * 0.7) / 3) * 3);
    const result = await parseImageDataUrl(dataUrl(mime, cut), { ...opts, field: 'logoImage' });
    expect(result).toEqual({
      ok: false,
      code: 'INVALID_IMAGE',
      message: 'logoImage is not a decodable PNG, JPEG or WebP image',
    });
  });

  it('refuses an image over the cap with IMAGE_TOO_LARGE and names the limit', async () => {
    const result = await parseImageDataUrl(dataUrl('image/png', png), {
      field: 'photoImage',
      maxBytes: png.length - 1,
    });
    expect(result).toEqual({
      ok: false,
      code: 'IMAGE_TOO_LARGE',
      message: `photoImage must be at most ${png.length - 1} bytes`,
    });
  });

  it('refuses an oversized payload from its length alone, even when it is not valid base64', async () => {
    const huge = `data:image/jpeg;base64,${'*'.repeat(Math.ceil((LIMITS.logoMaxBytes * 4) / 3) + 8)}`;
    const result = await parseImageDataUrl(huge, { field: 'logoImage', maxBytes: LIMITS.logoMaxBytes });
    expect(result).toEqual({ ok: false, code: 'IMAGE_TOO_LARGE', message: 'logoImage must be at most 1 MB' });
  });

  it('says "2 MB" for the photo cap', async () => {
    const big = Buffer.concat([png, Buffer.alloc(LIMITS.photoMaxBytes)]);
    const result = await parseImageDataUrl(dataUrl('image/png', big), opts);
    expect(result).toMatchObject({
      ok: false,
      code: 'IMAGE_TOO_LARGE',
      message: 'photoImage must be at most 2 MB',
    });
  });

  it('refuses a PNG header declaring 20000x20000 without decoding it', async () => {
    const tiny = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    const bomb = declaredSize(tiny, 20_000, 20_000);
    expect(bomb.length).toBeLessThan(200);
    const result = await parseImageDataUrl(dataUrl('image/png', bomb), opts);
    expect(result).toEqual({
      ok: false,
      code: 'INVALID_IMAGE',
      message: 'photoImage is too large (20000x20000; at most 12,000 pixels a side)',
    });
  });

  it.each([
    [10_000, 1, 'photoImage is too narrow (10000x1; the longer side may be at most 8 times the shorter)'],
    [1, 10_000, 'photoImage is too narrow (1x10000; the longer side may be at most 8 times the shorter)'],
    [20_000, 20, 'photoImage is too large (20000x20; at most 12,000 pixels a side)'],
  ])('refuses a real %ix%i PNG by its header, naming the limit', async (width, height, message) => {
    const strip = await sharp({ create: { width, height, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    expect(await parseImageDataUrl(dataUrl('image/png', strip), opts)).toEqual({
      ok: false,
      code: 'INVALID_IMAGE',
      message,
    });
  });

  it('refuses a highly compressed, fully valid 64-megapixel PNG', async () => {
    const bomb = compressedBomb(8000);
    expect(bomb.length).toBeLessThan(LIMITS.photoMaxBytes);
    const result = await parseImageDataUrl(dataUrl('image/png', bomb), opts);
    expect(result).toMatchObject({
      ok: false,
      code: 'INVALID_IMAGE',
      message: expect.stringContaining('too many pixels'),
    });
  });
});

describe('helpers', () => {
  it.each([
    [2 * 1024 * 1024, '2 MB'],
    [1024 * 1024, '1 MB'],
    [512 * 1024, '512 KB'],
    [1000, '1000 bytes'],
  ])('formatByteSize(%i) is %s', (bytes, text) => {
    expect(formatByteSize(bytes)).toBe(text);
  });

  it('sniffs the three supported signatures and nothing else', () => {
    expect(sniffImageType(png)).toBe('image/png');
    expect(sniffImageType(jpeg)).toBe('image/jpeg');
    expect(sniffImageType(webp)).toBe('image/webp');
    expect(sniffImageType(Buffer.from('RIFF0000WAVE'))).toBeNull();
    expect(sniffImageType(Buffer.alloc(0))).toBeNull();
  });
});
