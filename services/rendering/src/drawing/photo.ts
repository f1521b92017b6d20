import { LIMITS } from '@thumbforge/contracts';
import sharp from 'sharp';
import type { PhotoPlacement } from '../domain/index.js';
import { toLayer, type Layer } from './layer.js';

/** Share of the photo, from its faded edge inwards, over which it fades in from the background. */
const FADE_SHARE = 0.42;

/**
 * The photo as the subject: cropped to its slot around the most interesting region (sharp's
 * `attention` strategy favours faces, skin and contrast), given a little punch, and faded into the
 * background on the edge that faces the title.
 */
export async function photoLayer(photo: Buffer, placement: PhotoPlacement): Promise<Layer> {
  const { width, height } = placement.rect;
  const gradient =
    placement.fadeEdge === 'left'
      ? { x1: 0, y1: 0, x2: 1, y2: 0 }
      : placement.fadeEdge === 'right'
        ? { x1: 1, y1: 0, x2: 0, y2: 0 }
        : { x1: 0, y1: 0, x2: 0, y2: 1 };
  const mask = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
      <defs><linearGradient id="fade" x1="${gradient.x1}" y1="${gradient.y1}" x2="${gradient.x2}" y2="${gradient.y2}">
        <stop offset="0" stop-color="#fff" stop-opacity="0"/>
        <stop offset="${FADE_SHARE * 0.5}" stop-color="#fff" stop-opacity="0.55"/>
        <stop offset="${FADE_SHARE}" stop-color="#fff" stop-opacity="1"/>
        <stop offset="1" stop-color="#fff" stop-opacity="1"/>
      </linearGradient></defs>
      <rect width="${width}" height="${height}" fill="url(#fade)"/>
    </svg>`,
  );
  const [cropped, alpha] = await Promise.all([
    sharp(photo, { failOn: 'error', limitInputPixels: LIMITS.maxInputPixels, autoOrient: true })
      .resize(width, height, { fit: 'cover', position: 'attention' })
      .modulate({ saturation: 1.12 })
      .linear(1.06, -6)
      .removeAlpha()
      .raw()
      .toBuffer(),
    sharp(mask).extractChannel(3).raw().toBuffer(),
  ]);
  return toLayer(
    sharp(cropped, { raw: { width, height, channels: 3 } }).joinChannel(alpha, {
      raw: { width, height, channels: 1 },
    }),
  );
}
