import { LIMITS } from '@thumbforge/contracts';
import sharp from 'sharp';
import { pixelBudgetViolation } from './pixel-budget.js';

export type ImageMime = 'image/png' | 'image/jpeg' | 'image/webp';

export type ParsedImage =
  | { ok: true; bytes: Buffer; mime: ImageMime; width: number; height: number }
  | { ok: false; code: 'INVALID_IMAGE' | 'IMAGE_TOO_LARGE'; message: string };

export interface ParseImageOptions {
  /** Request field the data URL came from; every message names it. */
  field: string;
  /** Cap on the decoded size in bytes. */
  maxBytes: number;
}

const DATA_URL = /^data:image\/(png|jpeg|jpg|webp);base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** `2 MB`, `512 KB`, `1000 bytes`: sizes as a user reads them in an error message. */
export function formatByteSize(bytes: number): string {
  const mb = 1024 * 1024;
  if (bytes >= mb && bytes % mb === 0) return `${bytes / mb} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/** The image type named by the file's own signature, whatever the data URL claims. */
export function sniffImageType(bytes: Buffer): ImageMime | null {
  if (
    bytes.length >= 8 &&
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  ) {
    return 'image/png';
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (
    bytes.length >= 12 &&
    bytes.toString('latin1', 0, 4) === 'RIFF' &&
    bytes.toString('latin1', 8, 12) === 'WEBP'
  ) {
    return 'image/webp';
  }
  return null;
}

/**
 * Validates an inline image sent as a data URL (DESIGN §4): a `data:image/(png|jpeg|jpg|webp);base64,`
 * prefix, canonical base64, a decoded size within `maxBytes`, a PNG/JPEG/WebP signature, dimensions
 * within the pixel budget (read from the header, before any decoding) and a complete decode.
 * A file whose signature differs from the declared type is accepted as what it really is: `mime` is
 * the sniffed type.
 */
export async function parseImageDataUrl(dataUrl: string, opts: ParseImageOptions): Promise<ParsedImage> {
  const { field, maxBytes } = opts;
  const invalid = (message: string): ParsedImage => ({ ok: false, code: 'INVALID_IMAGE', message });
  const notDecodable = invalid(`${field} is not a decodable PNG, JPEG or WebP image`);

  if (typeof dataUrl !== 'string') return invalid(`${field} must be a string`);
  const prefix = DATA_URL.exec(dataUrl);
  if (!prefix) {
    return invalid(`${field} must be a data URL of a PNG, JPEG or WebP image (data:image/png;base64,...)`);
  }
  const data = dataUrl.slice(prefix[0].length);

  // The decoded size follows from the length alone: refuse an oversized image before decoding it.
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  if ((data.length / 4) * 3 - padding > maxBytes) {
    return {
      ok: false,
      code: 'IMAGE_TOO_LARGE',
      message: `${field} must be at most ${formatByteSize(maxBytes)}`,
    };
  }
  if (data.length === 0) return invalid(`${field} is empty`);
  if (data.length % 4 !== 0 || !BASE64.test(data)) return invalid(`${field} is not valid base64`);
  const bytes = Buffer.from(data, 'base64');
  // Canonical form only: Buffer.from silently drops what it cannot use (stray bits, misplaced padding).
  if (bytes.toString('base64') !== data) return invalid(`${field} is not valid base64`);

  const mime = sniffImageType(bytes);
  if (!mime) return notDecodable;

  let width: number;
  let height: number;
  try {
    // Reads the header only; an unbounded limit here lets the pixel check below give its own message.
    const header = await sharp(bytes, { limitInputPixels: false }).metadata();
    // As displayed: EXIF orientation applied.
    ({ width, height } = header.autoOrient);
  } catch {
    return notDecodable;
  }
  if (!(width > 0 && height > 0)) return notDecodable;
  const violation = pixelBudgetViolation(width, height);
  if (violation) return invalid(`${field} ${violation}`);

  try {
    // A full decode: truncated or corrupt files fail here. stats() streams, so nothing large is held.
    await sharp(bytes, { failOn: 'error', limitInputPixels: LIMITS.maxInputPixels }).stats();
  } catch {
    return notDecodable;
  }
  return { ok: true, bytes, mime, width, height };
}
