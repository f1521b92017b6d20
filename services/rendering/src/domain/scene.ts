import type { Dimensions, LogoPosition } from '@thumbforge/contracts';
import type { Direction } from './text.js';
import type { Rect } from './title-layout.js';

export type Align = 'left' | 'centre' | 'right';

export interface PhotoPlacement {
  rect: Rect;
  /** The side facing the title, faded into the background. */
  fadeEdge: 'left' | 'right' | 'top';
}

export interface Scene {
  canvas: Dimensions;
  /** Where the title block must stay. */
  titleBox: Rect;
  align: Align;
  photo: PhotoPlacement | null;
  /** Padding from the canvas edges, in pixels. */
  padding: number;
}

export interface SceneOptions {
  hasPhoto: boolean;
  /** The logo's final rectangle (see logoRect): the title keeps clear of it. */
  logo: Rect | null;
  direction: Direction;
}

/** Landscape formats put the photo beside the title; the square one puts it below. */
const SIDE_BY_SIDE_MIN_ASPECT = 1.2;
const PHOTO_WIDTH_SHARE = 0.46;
const PHOTO_HEIGHT_SHARE = 0.5;

/**
 * Places the photo on one side and the title on the other: the photo on the right for left-to-right
 * titles and on the left for right-to-left ones, below the title on square formats. Without a photo
 * the title is centred. The title box overlaps the photo's faded edge a little, as thumbnails do.
 */
export function planScene(canvas: Dimensions, options: SceneOptions): Scene {
  const { width: W, height: H } = canvas;
  const padding = Math.round(Math.min(W, H) * 0.06);
  let titleBox: Rect;
  let photo: PhotoPlacement | null = null;
  let align: Align;

  if (!options.hasPhoto) {
    const inset = Math.round(padding * 1.5);
    titleBox = { x: inset, y: padding, width: W - 2 * inset, height: H - 2 * padding };
    align = 'centre';
  } else if (W / H >= SIDE_BY_SIDE_MIN_ASPECT) {
    const photoWidth = Math.round(W * PHOTO_WIDTH_SHARE);
    const overlap = Math.round(W * 0.04);
    const textWidth = W - photoWidth - padding + overlap;
    if (options.direction === 'rtl') {
      photo = { rect: { x: 0, y: 0, width: photoWidth, height: H }, fadeEdge: 'right' };
      titleBox = { x: photoWidth - overlap, y: padding, width: textWidth, height: H - 2 * padding };
      align = 'right';
    } else {
      photo = { rect: { x: W - photoWidth, y: 0, width: photoWidth, height: H }, fadeEdge: 'left' };
      titleBox = { x: padding, y: padding, width: textWidth, height: H - 2 * padding };
      align = 'left';
    }
  } else {
    const photoHeight = Math.round(H * PHOTO_HEIGHT_SHARE);
    const overlap = Math.round(H * 0.04);
    photo = { rect: { x: 0, y: H - photoHeight, width: W, height: photoHeight }, fadeEdge: 'top' };
    titleBox = {
      x: padding,
      y: padding,
      width: W - 2 * padding,
      height: H - photoHeight - padding + overlap,
    };
    align = 'centre';
  }

  if (options.logo) titleBox = avoid(titleBox, options.logo, Math.round(padding / 2), align === 'centre');
  return { canvas, titleBox, align, photo, padding };
}

/**
 * The logo's rectangle: `size` is its width as a fraction of the canvas width; the height follows
 * the logo's aspect ratio, capped so a tall logo never covers more than 40 % of the height.
 */
export function logoRect(
  canvas: Dimensions,
  placement: { position: LogoPosition; size: number },
  aspect: number,
): Rect {
  const margin = Math.round(Math.min(canvas.width, canvas.height) * 0.035);
  let width = Math.max(1, Math.round(canvas.width * placement.size));
  let height = Math.max(1, Math.round(width / aspect));
  const maxHeight = Math.round(canvas.height * 0.4);
  if (height > maxHeight) {
    height = maxHeight;
    width = Math.max(1, Math.round(height * aspect));
  }
  const x = placement.position.endsWith('left') ? margin : canvas.width - margin - width;
  const y = placement.position.startsWith('top') ? margin : canvas.height - margin - height;
  return { x, y, width, height };
}

export function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Shrinks `box` away from `obstacle`, vertically or horizontally, whichever keeps more area. A
 * centred box shrinks by the same amount on the opposite side too, so it stays centred.
 */
function avoid(box: Rect, obstacle: Rect, gap: number, symmetric: boolean): Rect {
  if (!intersects(box, obstacle)) return box;
  const candidates: Rect[] = [];
  const fromTop = obstacle.y + obstacle.height / 2 < box.y + box.height / 2;
  const cutY = fromTop ? obstacle.y + obstacle.height + gap - box.y : box.y + box.height - (obstacle.y - gap);
  candidates.push({
    ...box,
    y: fromTop || symmetric ? box.y + cutY : box.y,
    height: box.height - cutY * (symmetric ? 2 : 1),
  });
  const fromLeft = obstacle.x + obstacle.width / 2 < box.x + box.width / 2;
  const cutX = fromLeft ? obstacle.x + obstacle.width + gap - box.x : box.x + box.width - (obstacle.x - gap);
  candidates.push({
    ...box,
    x: fromLeft || symmetric ? box.x + cutX : box.x,
    width: box.width - cutX * (symmetric ? 2 : 1),
  });
  const valid = candidates.filter((c) => c.width > 0 && c.height > 0);
  if (valid.length === 0) return box;
  return valid.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
}
