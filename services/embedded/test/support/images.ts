import { deflateSync } from 'node:zlib';
import sharp from 'sharp';

export async function pngDataUrl(
  width = 64,
  height = 64,
  color = { r: 200, g: 40, b: 40, alpha: 1 },
): Promise<string> {
  const png = await sharp({ create: { width, height, channels: 4, background: color } })
    .png()
    .toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

export async function jpegDataUrl(width = 64, height = 64): Promise<string> {
  const jpeg = await sharp({ create: { width, height, channels: 3, background: { r: 20, g: 120, b: 220 } } })
    .jpeg()
    .toBuffer();
  return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
}

/** Random noise compresses badly, so the decoded size is close to the pixel count: an oversized upload. */
export async function noisyPngDataUrl(bytes: number): Promise<string> {
  const side = Math.ceil(Math.sqrt(bytes / 3));
  const raw = Buffer.alloc(side * side * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  const png = await sharp(raw, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, 'ascii'), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A valid, tiny PNG that declares 30000×30000 pixels of zeros: a decompression bomb (~10 KB on the wire). */
export function bombPngDataUrl(): string {
  const side = 30_000;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const row = Buffer.alloc(side + 1);
  const rows = 200; // a few rows are enough: the header alone must make the decoder refuse
  const idat = deflateSync(Buffer.concat(Array.from({ length: rows }, () => row)), { level: 9 });
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

export async function decode(
  dataUrl: string,
): Promise<{ format: string; width: number; height: number; mime: string }> {
  const match = /^data:(image\/[a-z]+);base64,(.+)$/.exec(dataUrl);
  if (!match) throw new Error('not a base64 image data URL');
  const meta = await sharp(Buffer.from(match[2]!, 'base64')).metadata();
  return { format: meta.format!, width: meta.width!, height: meta.height!, mime: match[1]! };
}
