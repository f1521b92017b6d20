import { LIMITS } from '@thumbforge/contracts';
import sharp from 'sharp';
import { profileReferences, type Pixels, type ReferenceProfile } from '../layout/index.js';
import { shared } from './abort.js';
import { digest } from './digest.js';
import { LruCache } from './lru.js';

/** Each reference is analysed at this width: enough for colours, brightness and where text sits. */
const ANALYSIS_WIDTH = 64;

const profiles = new LruCache<Promise<ReferenceProfile>>(256);

/** A reference image shrunk to a small RGB grid with its own aspect ratio. */
export async function referencePixels(image: Buffer): Promise<Pixels> {
  const { autoOrient } = await sharp(image, { limitInputPixels: LIMITS.maxInputPixels }).metadata();
  const height = Math.max(
    16,
    Math.min(128, Math.round((ANALYSIS_WIDTH * autoOrient.height) / autoOrient.width)),
  );
  const data = await sharp(image, {
    failOn: 'error',
    limitInputPixels: LIMITS.maxInputPixels,
    autoOrient: true,
  })
    .resize(ANALYSIS_WIDTH, height, { fit: 'fill' })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer();
  return { data: new Uint8Array(data), width: ANALYSIS_WIDTH, height };
}

/** The profile of a reference set; a saved set comes back with every job that names it, so it is kept. */
export function referenceProfile(images: Buffer[], signal?: AbortSignal): Promise<ReferenceProfile> {
  const key = images.map(digest).join(',');
  return shared(
    profiles,
    key,
    1,
    () => Promise.all(images.map(referencePixels)).then(profileReferences),
    signal,
  );
}
