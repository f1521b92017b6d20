import type { Pixels } from './references.js';

/**
 * Where a photo's subject is, in 0..1 of its width and height: the centre of its skin-toned pixels
 * (the classic RGB skin rule), weighted towards the top, where faces sit above shoulders and
 * clothes. null when there is too little skin to go by.
 */
export function subjectFocus(image: Pixels): { x: number; y: number } | null {
  const { data, width, height } = image;
  let sx = 0;
  let sy = 0;
  let total = 0;
  for (let y = 0; y < height; y++) {
    // The upper part of a picture counts more: a face outweighs hands or arms.
    const weight = 1.5 - y / height;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const r = data[o]!;
      const g = data[o + 1]!;
      const b = data[o + 2]!;
      const skin =
        r > 95 && g > 40 && b > 20 && Math.max(r, g, b) - Math.min(r, g, b) > 15 && r - g > 15 && r > b;
      if (!skin) continue;
      sx += x * weight;
      sy += y * weight;
      total += weight;
    }
  }
  if (total < width * height * 0.02) return null;
  return { x: (sx / total + 0.5) / width, y: (sy / total + 0.5) / height };
}

/**
 * The crop of an image scaled to cover a slot that keeps a focus point in view: centred across, at
 * `anchor` of the slot's height (40 %: some headroom above a face), within the image.
 */
export function focusCrop(
  image: { width: number; height: number },
  slot: { width: number; height: number },
  focus: { x: number; y: number },
  anchor = 0.4,
): { scaledWidth: number; scaledHeight: number; left: number; top: number } {
  const scale = Math.max(slot.width / image.width, slot.height / image.height);
  const scaledWidth = Math.max(slot.width, Math.round(image.width * scale));
  const scaledHeight = Math.max(slot.height, Math.round(image.height * scale));
  const clamp = (v: number, max: number) => Math.max(0, Math.min(max, Math.round(v)));
  return {
    scaledWidth,
    scaledHeight,
    left: clamp(focus.x * scaledWidth - slot.width / 2, scaledWidth - slot.width),
    top: clamp(focus.y * scaledHeight - slot.height * anchor, scaledHeight - slot.height),
  };
}
