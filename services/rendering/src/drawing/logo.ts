import { LIMITS } from '@thumbforge/contracts';
import sharp, { type OverlayOptions } from 'sharp';
import type { Rect } from '../domain/index.js';
import { fromLayer, overlay, toLayer } from './layer.js';

/** Width over height of the logo as displayed. */
export async function logoAspect(logo: Buffer): Promise<number> {
  const { autoOrient } = await sharp(logo, { limitInputPixels: LIMITS.maxInputPixels }).metadata();
  return autoOrient.width / autoOrient.height;
}

/**
 * The logo overlay at its rectangle, with an optional soft drop shadow cast down and to the right.
 * Returned as composite layers, shadow first, to be drawn last, over everything else.
 */
export async function logoLayers(logo: Buffer, rect: Rect, dropShadow: boolean): Promise<OverlayOptions[]> {
  const resized = await toLayer(
    sharp(logo, { failOn: 'error', limitInputPixels: LIMITS.maxInputPixels, autoOrient: true }).resize(
      rect.width,
      rect.height,
      { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } },
    ),
  );
  const layers: OverlayOptions[] = [];
  if (dropShadow) {
    const blur = Math.max(1, rect.width * 0.03);
    const margin = Math.ceil(blur * 3);
    const offset = Math.max(1, Math.round(rect.width * 0.025));
    const alpha = await fromLayer(resized).extractChannel(3).linear(0.6, 0).raw().toBuffer();
    const shadow = await toLayer(
      sharp({ create: { width: resized.width, height: resized.height, channels: 3, background: '#000000' } })
        .joinChannel(alpha, { raw: { width: resized.width, height: resized.height, channels: 1 } })
        .extend({
          top: margin,
          bottom: margin,
          left: margin,
          right: margin,
          background: { r: 0, g: 0, b: 0, alpha: 0 },
        })
        .blur(blur),
    );
    layers.push(overlay(shadow, rect.x - margin + offset, rect.y - margin + offset));
  }
  layers.push(overlay(resized, rect.x, rect.y));
  return layers;
}
