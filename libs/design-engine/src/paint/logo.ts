import { LIMITS } from '@thumbforge/contracts';
import sharp, { type OverlayOptions } from 'sharp';
import type { Rect } from '../layout/index.js';
import { checkpoint, shared } from './abort.js';
import type { Sprite } from './canvas.js';
import { digest } from './digest.js';
import { pixelCaches } from './caches.js';
import { LruCache } from './lru.js';

const cache = pixelCaches.logos;
const aspects = new LruCache<Promise<number>>(1024);

/** Width over height of the logo as displayed (EXIF orientation applied). */
export function logoAspect(logo: Buffer): Promise<number> {
  const key = digest(logo);
  let aspect = aspects.get(key);
  if (!aspect) {
    aspect = sharp(logo, { limitInputPixels: LIMITS.maxInputPixels })
      .metadata()
      .then(({ autoOrient }) => autoOrient.width / autoOrient.height);
    aspects.set(key, aspect);
    aspect.catch(() => aspects.delete(key));
  }
  return aspect;
}

/**
 * The logo fitted into its rectangle and, when asked, a soft shadow cast down and to the right:
 * sprites to draw last, shadow first. Kept per logo, rectangle and shadow setting.
 */
export function logoSprites(
  logo: Buffer,
  rect: Rect,
  dropShadow: boolean,
  signal?: AbortSignal,
): Promise<Sprite[]> {
  const key = `${digest(logo)}:${rect.x},${rect.y},${rect.width},${rect.height}:${dropShadow}`;
  return shared(
    cache,
    key,
    rect.width * rect.height * 8,
    () => drawLogo(logo, rect, dropShadow, signal),
    signal,
  );
}

async function drawLogo(
  logo: Buffer,
  rect: Rect,
  dropShadow: boolean,
  signal: AbortSignal | undefined,
): Promise<Sprite[]> {
  checkpoint(signal);
  const fitted = await sharp(logo, {
    failOn: 'error',
    limitInputPixels: LIMITS.maxInputPixels,
    autoOrient: true,
  })
    .resize(rect.width, rect.height, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = fitted.info;
  const sprites: Sprite[] = [];
  if (dropShadow) {
    checkpoint(signal);
    const blur = Math.max(1, rect.width * 0.03);
    const margin = Math.ceil(blur * 3);
    const offset = Math.max(1, Math.round(rect.width * 0.025));
    const alpha = await sharp(fitted.data, { raw: { width, height, channels: 4 } })
      .extractChannel(3)
      .extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: 0, g: 0, b: 0 } })
      .blur(blur)
      .raw()
      .toBuffer();
    const w = width + 2 * margin;
    const h = height + 2 * margin;
    const shadow = new Uint8Array(w * h * 4);
    for (let i = 0; i < w * h; i++) shadow[i * 4 + 3] = Math.round(alpha[i]! * 0.6);
    sprites.push({
      data: shadow,
      width: w,
      height: h,
      left: rect.x - margin + offset,
      top: rect.y - margin + offset,
    });
  }
  sprites.push({ data: new Uint8Array(fitted.data), width, height, left: rect.x, top: rect.y });
  return sprites;
}

/** The logo's sprites as sharp composite layers, for pictures the engine did not draw itself. */
export async function logoLayers(logo: Buffer, rect: Rect, dropShadow: boolean): Promise<OverlayOptions[]> {
  return (await logoSprites(logo, rect, dropShadow)).map((sprite) => ({
    input: Buffer.from(sprite.data.buffer, sprite.data.byteOffset, sprite.data.byteLength),
    raw: { width: sprite.width, height: sprite.height, channels: 4 },
    left: sprite.left,
    top: sprite.top,
  }));
}
