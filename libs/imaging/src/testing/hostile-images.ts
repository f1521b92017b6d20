import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** An image a hostile client might send, and what the service must answer for it. */
export interface HostileImage {
  name: string;
  bytes: Buffer;
  mime: string;
  /** 200: decoded and drawn; 400: refused before any work, the message naming the reason. */
  expected: 200 | 400;
  message?: RegExp;
}

const solid = (width: number, height: number, channels: 3 | 4 = 3) =>
  sharp({ create: { width, height, channels, background: { r: 200, g: 60, b: 30, alpha: 0.8 } } });

/** A small picture with some detail, so the encoders produce ordinary files. */
const picture = (width = 320, height = 240) =>
  sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
        <rect width="100%" height="100%" fill="#1e3a8a"/>
        <circle cx="${width / 2}" cy="${height / 2}" r="${height / 3}" fill="#f97316"/></svg>`,
    ),
  );

export function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body) >>> 0, 8 + data.length);
  return out;
}

/** A PNG whose header declares another size than its data holds (valid CRC): a header-only bomb. */
export function declaredSize(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png);
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)) >>> 0, 29);
  return out;
}

/** A fully valid 1-bit greyscale PNG of side×side pixels: a few KB that decode to side² pixels. */
export function compressedBomb(side: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 1;
  const rows = Buffer.alloc((1 + Math.ceil(side / 8)) * side);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(rows, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JPEG whose start-of-frame declares another size. */
function jpegDeclaredSize(jpeg: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(jpeg);
  for (let i = 2; i < out.length - 9;) {
    const marker = out[i + 1]!;
    const length = out.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc2) {
      out.writeUInt16BE(height, i + 5);
      out.writeUInt16BE(width, i + 7);
      return out;
    }
    i += 2 + length;
  }
  throw new Error('no start-of-frame marker');
}

const truncated = (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length * 0.6));
const narrow = /is too narrow/;
const tooLarge = /is too large/;
const tooManyPixels = /has too many pixels/;
const undecodable = /is not a decodable PNG, JPEG or WebP image/;

/** Every kind of hostile or unusual image the suite sends, each as photo, logo and reference image. */
export async function hostileImages(): Promise<HostileImage[]> {
  const png = await picture().png().toBuffer();
  const jpeg = await picture().jpeg().toBuffer();
  const webp = await picture().webp().toBuffer();
  const tiny = await solid(1, 1).png().toBuffer();
  const frames = await Promise.all(
    ['#ef4444', '#22c55e', '#3b82f6'].map((c) =>
      sharp({ create: { width: 96, height: 64, channels: 3, background: c } })
        .png()
        .toBuffer(),
    ),
  );
  const list: Array<Omit<HostileImage, 'mime'> & { mime?: string }> = [
    { name: '10000x1 PNG', bytes: await solid(10_000, 1).png().toBuffer(), expected: 400, message: narrow },
    { name: '1x10000 PNG', bytes: await solid(1, 10_000).png().toBuffer(), expected: 400, message: narrow },
    { name: '500x1 PNG', bytes: await solid(500, 1).png().toBuffer(), expected: 400, message: narrow },
    {
      name: '20000x20 PNG',
      bytes: await solid(20_000, 20).png().toBuffer(),
      expected: 400,
      message: tooLarge,
    },
    {
      name: '900x100 JPEG (9:1)',
      bytes: await solid(900, 100).jpeg().toBuffer(),
      expected: 400,
      message: narrow,
    },
    {
      name: '1600x200 PNG (8:1, the largest ratio allowed)',
      bytes: await solid(1600, 200).png().toBuffer(),
      expected: 200,
    },
    {
      name: 'PNG declaring 20000x20000',
      bytes: declaredSize(tiny, 20_000, 20_000),
      expected: 400,
      message: tooLarge,
    },
    {
      name: 'PNG declaring 100000x1',
      bytes: declaredSize(tiny, 100_000, 1),
      expected: 400,
      message: tooLarge,
    },
    {
      name: 'PNG declaring 6000x6000 over 1x1 data',
      bytes: declaredSize(tiny, 6_000, 6_000),
      expected: 400,
      message: undecodable,
    },
    {
      name: 'JPEG declaring 65000x65000',
      bytes: jpegDeclaredSize(jpeg, 65_000, 65_000),
      mime: 'image/jpeg',
      expected: 400,
      message: tooLarge,
    },
    {
      name: 'valid 1-bit PNG of 8000x8000 (compressed bomb)',
      bytes: compressedBomb(8000),
      expected: 400,
      message: tooManyPixels,
    },
    { name: 'truncated PNG', bytes: truncated(png), expected: 400, message: undecodable },
    {
      name: 'truncated JPEG',
      bytes: truncated(jpeg),
      mime: 'image/jpeg',
      expected: 400,
      message: undecodable,
    },
    {
      name: 'truncated WebP',
      bytes: truncated(webp),
      mime: 'image/webp',
      expected: 400,
      message: undecodable,
    },
    {
      name: 'GIF bytes',
      bytes: Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00;', 'latin1'),
      expected: 400,
      message: undecodable,
    },
    { name: '16-bit RGB PNG', bytes: await picture().toColourspace('rgb16').png().toBuffer(), expected: 200 },
    {
      name: '16-bit greyscale PNG',
      bytes: await picture().toColourspace('grey16').png().toBuffer(),
      expected: 200,
    },
    {
      name: 'CMYK JPEG',
      bytes: await picture().toColourspace('cmyk').jpeg().toBuffer(),
      mime: 'image/jpeg',
      expected: 200,
    },
    {
      name: 'animated WebP (3 frames)',
      bytes: await sharp(frames, { join: { animated: true } })
        .webp({ loop: 0 })
        .toBuffer(),
      mime: 'image/webp',
      expected: 200,
    },
    {
      name: 'palette PNG with alpha',
      bytes: await solid(200, 120, 4).png({ palette: true }).toBuffer(),
      expected: 200,
    },
    { name: '1x1 PNG', bytes: tiny, expected: 200 },
    {
      name: 'JPEG rotated by EXIF orientation',
      bytes: await picture(400, 100).jpeg().withMetadata({ orientation: 6 }).toBuffer(),
      mime: 'image/jpeg',
      expected: 200,
    },
    { name: 'JPEG sent as image/png', bytes: jpeg, expected: 200 },
  ];
  return list.map((image) => ({ ...image, mime: image.mime ?? 'image/png' }));
}

export const dataUrlOf = (image: HostileImage) =>
  `data:${image.mime};base64,${image.bytes.toString('base64')}`;
