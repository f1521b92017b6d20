import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_TYPES,
  ENCODER_SETTINGS,
  encodeImage,
  escapeMarkup,
  extensionOf,
  withEncoder,
} from '../src/index.js';

const scene = () =>
  sharp(
    Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="120"><rect width="200" height="120" fill="#0ea5e9"/><circle cx="100" cy="60" r="40" fill="#facc15"/></svg>',
    ),
  );

describe('encodeImage', () => {
  it.each(['webp', 'png'] as const)('encodes a pipeline as %s', async (outputFormat) => {
    const meta = await sharp(await encodeImage(scene(), outputFormat)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual([outputFormat, 200, 120]);
  });

  it('encodes raw pixels and already encoded buffers', async () => {
    const raw = { data: Buffer.alloc(4 * 3 * 3, 128), width: 4, height: 3, channels: 3 as const };
    expect((await sharp(await encodeImage(raw, 'png')).metadata()).format).toBe('png');
    const jpeg = await scene().jpeg().toBuffer();
    expect((await sharp(await encodeImage(jpeg, 'webp')).metadata()).format).toBe('webp');
  });

  it('is deterministic: the same pixels give the same bytes', async () => {
    for (const outputFormat of ['webp', 'png'] as const) {
      const [a, b] = await Promise.all([
        encodeImage(scene(), outputFormat),
        encodeImage(scene(), outputFormat),
      ]);
      expect(a.equals(b)).toBe(true);
    }
  });

  it('uses the chosen settings', async () => {
    expect(ENCODER_SETTINGS.webp).toEqual({ quality: 80, effort: 2 });
    const lossless = await withEncoder(scene(), 'png').toBuffer();
    const decoded = await sharp(lossless).raw().toBuffer();
    expect(decoded.equals(await scene().raw().toBuffer())).toBe(true);
  });

  it('maps output formats to content types and extensions', () => {
    expect(CONTENT_TYPES).toEqual({ webp: 'image/webp', png: 'image/png' });
    expect([extensionOf('webp'), extensionOf('png')]).toEqual(['webp', 'png']);
  });
});

describe('escapeMarkup', () => {
  it('escapes XML entities and replaces control characters', () => {
    expect(escapeMarkup(`<b>Tom & "Jerry"</b> it's\u0007`)).toBe(
      '&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt; it&apos;s ',
    );
  });

  it('makes hostile text render literally instead of failing or being interpreted', async () => {
    const hostile = '<span foreground="red">&amp; </b> <';
    const { info } = await sharp({ text: { text: escapeMarkup(hostile), rgba: true } })
      .png()
      .toBuffer({ resolveWithObject: true });
    expect(info.width).toBeGreaterThan(0);
    await expect(
      sharp({ text: { text: hostile } })
        .png()
        .toBuffer(),
    ).rejects.toThrow(/markup/);
  });
});
