import sharp, { type OverlayOptions, type Sharp } from 'sharp';

/**
 * An RGBA image kept as raw pixels between drawing steps: encoding intermediate layers as PNG would
 * cost more than drawing them.
 */
export interface Layer {
  data: Buffer;
  width: number;
  height: number;
}

export async function toLayer(image: Sharp): Promise<Layer> {
  const { data, info } = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

export function fromLayer(layer: Layer): Sharp {
  return sharp(layer.data, { raw: { width: layer.width, height: layer.height, channels: 4 } });
}

export function overlay(layer: Layer, left: number, top: number): OverlayOptions {
  return {
    input: layer.data,
    raw: { width: layer.width, height: layer.height, channels: 4 },
    left: Math.round(left),
    top: Math.round(top),
  };
}
