import { LIMITS } from '@thumbforge/contracts';
import { assertWithinPixelBudget } from '@thumbforge/imaging';
import sharp from 'sharp';
import { focusCrop, parseHex, subjectFocus, type PaletteSpec, type PhotoPlacement } from '../layout/index.js';
import { checkpoint, shared } from './abort.js';
import type { Sprite } from './canvas.js';
import { digest } from './digest.js';
import { pixelCaches } from './caches.js';

/** Share of the slot, from its inner edge, over which the photo fades into the scene. */
const FADE_SHARE = 0.4;

/** A saved photo comes back with every job of its account: its cut for a slot is kept. */
const cache = pixelCaches.photos;

/**
 * The photo as the subject: cropped to its slot around the subject (see cropToSubject), graded
 * towards the scene's colours (shadows take the background's hue, a little extra contrast) and faded into the
 * background along the edge that faces the title.
 */
export function photoSprite(
  photo: Buffer,
  placement: PhotoPlacement,
  palette: PaletteSpec,
  signal?: AbortSignal,
): Promise<Sprite> {
  const { rect, fadeEdge } = placement;
  const key = `${digest(photo)}:${rect.x},${rect.y},${rect.width},${rect.height}:${fadeEdge}:${placement.sideFade}:${palette.base}`;
  return shared(
    cache,
    key,
    rect.width * rect.height * 4,
    () => cutPhoto(photo, placement, palette, signal),
    signal,
  );
}

async function cutPhoto(
  photo: Buffer,
  placement: PhotoPlacement,
  palette: PaletteSpec,
  signal: AbortSignal | undefined,
): Promise<Sprite> {
  const { width, height, x: left, y: top } = placement.rect;
  // A slot faded at its top shows its subject lower, below the fade.
  const rgb = await cropToSubject(
    photo,
    { width, height },
    placement.fadeEdge === 'top' ? 0.55 : 0.4,
    signal,
  );
  checkpoint(signal);
  const tint = parseHex(palette.base);
  const out = new Uint8Array(width * height * 4);
  const fade = Math.max(1, Math.round((placement.fadeEdge === 'top' ? height : width) * FADE_SHARE));
  const side = placement.sideFade ? Math.max(1, Math.round(width * FADE_SHARE * 0.6)) : 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const o = (y * width + x) * 4;
      const r = rgb[i]!;
      const g = rgb[i + 1]!;
      const b = rgb[i + 2]!;
      // Shadows lean towards the scene's base colour; contrast up by 8 %.
      const light = (0.299 * r + 0.587 * g + 0.114 * b) / 255;
      const lean = 0.22 * (1 - light) * (1 - light);
      out[o] = clamp((r + (tint.r - r) * lean - 128) * 1.08 + 128);
      out[o + 1] = clamp((g + (tint.g - g) * lean - 128) * 1.08 + 128);
      out[o + 2] = clamp((b + (tint.b - b) * lean - 128) * 1.08 + 128);
      const distance = placement.fadeEdge === 'left' ? x : placement.fadeEdge === 'right' ? width - 1 - x : y;
      const t = Math.min(1, distance / fade);
      let alpha = t * t * (3 - 2 * t);
      if (side) {
        const u = Math.min(1, (placement.sideFade === 'left' ? x : width - 1 - x) / side);
        alpha *= u * u * (3 - 2 * u);
      }
      out[o + 3] = Math.round(255 * alpha);
    }
  }
  return { data: out, width, height, left, top };
}

const open = (photo: Buffer) =>
  sharp(photo, { failOn: 'error', limitInputPixels: LIMITS.maxInputPixels, autoOrient: true });

/**
 * The photo cut to its slot around its subject: the skin-toned centre found on a small copy (a
 * face, usually), or, when there is none, libvips' attention strategy (detail, saturation).
 */
async function cropToSubject(
  photo: Buffer,
  slot: { width: number; height: number },
  anchor: number,
  signal: AbortSignal | undefined,
): Promise<Buffer> {
  checkpoint(signal);
  const small = await open(photo)
    .resize(48, 48, { fit: 'inside' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const focus = subjectFocus({ data: small.data, width: small.info.width, height: small.info.height });
  const { autoOrient } = await open(photo).metadata();
  // Both branches scale the whole photo to cover the slot before cutting it: bound that image first.
  const crop = focusCrop(autoOrient, slot, focus ?? { x: 0.5, y: 0.5 }, anchor);
  assertWithinPixelBudget('photo scaled to its slot', crop.scaledWidth, crop.scaledHeight);
  checkpoint(signal);
  if (!focus) {
    return open(photo)
      .resize(slot.width, slot.height, { fit: 'cover', position: 'attention' })
      .removeAlpha()
      .raw()
      .toBuffer();
  }
  return open(photo)
    .resize(crop.scaledWidth, crop.scaledHeight, { fit: 'fill' })
    .extract({ left: crop.left, top: crop.top, width: slot.width, height: slot.height })
    .removeAlpha()
    .raw()
    .toBuffer();
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}
