import type { Dimensions, Format, LogoPosition } from '@thumbforge/contracts';
import type { Direction } from './bidi.js';
import { intersects, type Align, type Rect, type VerticalAlign } from './title-layout.js';

export interface PhotoPlacement {
  rect: Rect;
  /** The side facing the title, blended into the scene. */
  fadeEdge: 'left' | 'right' | 'top';
  /** A second side blended in, when the photo does not reach that edge of the canvas. */
  sideFade?: 'left' | 'right';
}

/** Where a reference set puts its text: centre in 0..1 of the canvas, and the block's height share. */
export interface TextPlacement {
  x: number;
  y: number;
  height: number;
}

export interface Template {
  id: string;
  titleBox: Rect;
  align: Align;
  verticalAlign: VerticalAlign;
  photo: PhotoPlacement | null;
  /** Where the decoration (or the photo's glow) centres: away from the title. */
  focus: { x: number; y: number };
  /** Areas that must stay clear of the title (the YouTube duration badge, the logo). */
  keepClear: Rect[];
  padding: number;
}

export interface TemplateOptions {
  format: Format;
  hasPhoto: boolean;
  /** The logo's final rectangle: the title keeps clear of it. */
  logo: Rect | null;
  direction: Direction;
  /** Picks among the templates of the aspect (a hash of the title). */
  variant: number;
  /** Title length in graphemes: long titles get more room. */
  length: number;
  /** Text placement mirrored from a reference set. */
  placement: TextPlacement | null;
}

/**
 * YouTube draws the video's duration over the bottom-right corner of the thumbnail: nothing that
 * matters may sit there.
 */
export function durationBadgeZone(canvas: Dimensions): Rect {
  const width = Math.round(canvas.width * 0.2);
  const height = Math.round(canvas.height * 0.16);
  return { x: canvas.width - width, y: canvas.height - height, width, height };
}

const SIDE_BY_SIDE_MIN_ASPECT = 1.2;

/**
 * Lays out the scene: the title's box, its alignment, the photo's slot and the decoration's focus.
 * Landscape formats have three title-only templates (title left with decoration right, centred, title
 * low with decoration high) and a photo beside the title; the square format has two title-only
 * templates and the photo below the title. Right-to-left titles mirror the scene. The title box keeps
 * clear of the logo and, on YouTube, of the duration badge.
 */
export function planTemplate(canvas: Dimensions, options: TemplateOptions): Template {
  const { width: W, height: H } = canvas;
  const padding = Math.round(Math.min(W, H) * 0.065);
  const landscape = W / H >= SIDE_BY_SIDE_MIN_ASPECT;
  const rtl = options.direction === 'rtl';
  const long = options.length > 70;
  let template: Omit<Template, 'keepClear' | 'padding'>;

  if (options.placement && !options.hasPhoto) {
    template = fromPlacement(canvas, options.placement, padding);
  } else if (options.hasPhoto && landscape) {
    const share = long ? 0.38 : options.length > 35 ? 0.42 : 0.46;
    const photoWidth = Math.round(W * share);
    const overlap = Math.round(W * 0.03);
    const textWidth = W - photoWidth - padding + overlap - Math.round(padding * 0.3);
    const photo: PhotoPlacement = rtl
      ? { rect: { x: 0, y: 0, width: photoWidth, height: H }, fadeEdge: 'right' }
      : { rect: { x: W - photoWidth, y: 0, width: photoWidth, height: H }, fadeEdge: 'left' };
    template = {
      id: rtl ? 'photo-left' : 'photo-right',
      titleBox: {
        x: rtl ? photoWidth - overlap + Math.round(padding * 0.3) : padding,
        y: padding,
        width: textWidth,
        height: H - 2 * padding,
      },
      align: rtl ? 'right' : 'left',
      verticalAlign: 'middle',
      photo,
      focus: { x: photo.rect.x + photoWidth / 2, y: H * 0.45 },
    };
  } else if (options.hasPhoto) {
    // Square: the subject low on one side, the title above it across the whole width.
    const top = Math.round(H * (options.length > 120 ? 0.6 : long ? 0.52 : 0.36));
    const left = Math.round(W * 0.26);
    const overlap = Math.round(H * 0.03);
    template = {
      id: 'photo-below',
      titleBox: { x: padding, y: padding, width: W - 2 * padding, height: top - padding + overlap },
      align: 'centre',
      verticalAlign: 'middle',
      photo: {
        rect: { x: rtl ? 0 : left, y: top, width: W - left, height: H - top },
        fadeEdge: 'top',
        sideFade: rtl ? 'right' : 'left',
      },
      focus: { x: rtl ? (W - left) / 2 : left + (W - left) / 2, y: top + (H - top) / 2 },
    };
  } else if (landscape) {
    const variants = long ? ['centre', 'side'] : ['side', 'centre', 'low'];
    const id = variants[options.variant % variants.length]!;
    template = landscapeTitleOnly(canvas, id, padding, rtl);
  } else {
    const id = long ? 'centre' : ['centre', 'high'][options.variant % 2]!;
    template =
      id === 'centre'
        ? {
            id,
            titleBox: { x: padding, y: padding, width: W - 2 * padding, height: H - 2 * padding },
            align: 'centre',
            verticalAlign: 'middle',
            photo: null,
            focus: { x: W / 2, y: H * 1.05 },
          }
        : {
            id,
            titleBox: { x: padding, y: padding * 1.4, width: W - 2 * padding, height: H * 0.6 },
            align: rtl ? 'right' : 'left',
            verticalAlign: 'top',
            photo: null,
            focus: { x: W * 0.75, y: H * 0.85 },
          };
  }

  const keepClear: Rect[] = [];
  if (options.format === 'youtube') keepClear.push(durationBadgeZone(canvas));
  if (options.logo) keepClear.push(options.logo);
  let titleBox = template.titleBox;
  for (const obstacle of keepClear) {
    titleBox = avoid(titleBox, obstacle, Math.round(padding / 2), template.align === 'centre');
  }
  return { ...template, titleBox, keepClear, padding };
}

function landscapeTitleOnly(
  canvas: Dimensions,
  id: string,
  padding: number,
  rtl: boolean,
): Omit<Template, 'keepClear' | 'padding'> {
  const { width: W, height: H } = canvas;
  if (id === 'centre') {
    return {
      id,
      titleBox: { x: padding * 1.5, y: padding, width: W - 3 * padding, height: H - 2 * padding },
      align: 'centre',
      verticalAlign: 'middle',
      photo: null,
      focus: { x: W / 2, y: H * 1.1 },
    };
  }
  if (id === 'low') {
    const width = Math.round(W * 0.78);
    return {
      id,
      titleBox: { x: rtl ? W - padding - width : padding, y: H * 0.3, width, height: H * 0.7 - padding },
      align: rtl ? 'right' : 'left',
      verticalAlign: 'bottom',
      photo: null,
      focus: { x: rtl ? W * 0.12 : W * 0.88, y: H * 0.14 },
    };
  }
  const width = Math.round(W * 0.64);
  return {
    id: 'side',
    titleBox: { x: rtl ? W - padding - width : padding, y: padding, width, height: H - 2 * padding },
    align: rtl ? 'right' : 'left',
    verticalAlign: 'middle',
    photo: null,
    focus: { x: rtl ? W * 0.14 : W * 0.86, y: H * 0.5 },
  };
}

/** A box around where the references set their text, as large as their text block and then some. */
function fromPlacement(
  canvas: Dimensions,
  placement: TextPlacement,
  padding: number,
): Omit<Template, 'keepClear' | 'padding'> {
  const { width: W, height: H } = canvas;
  const align: Align = placement.x < 0.4 ? 'left' : placement.x > 0.6 ? 'right' : 'centre';
  const verticalAlign: VerticalAlign = placement.y < 0.38 ? 'top' : placement.y > 0.62 ? 'bottom' : 'middle';
  const width = align === 'centre' ? W - 3 * padding : Math.round(W * 0.66);
  const x = align === 'left' ? padding : align === 'right' ? W - padding - width : 1.5 * padding;
  // As tall as the references' text block: the title takes their scale.
  const height = Math.min(H - 2 * padding, Math.max(H * 0.25, placement.height * H));
  const centreY = Math.min(H - padding - height / 2, Math.max(padding + height / 2, placement.y * H));
  return {
    id: `reference-${align}-${verticalAlign}`,
    titleBox: { x, y: centreY - height / 2, width, height },
    align,
    verticalAlign,
    photo: null,
    focus: { x: W - placement.x * W, y: H - placement.y * H },
  };
}

/**
 * The logo's rectangle: `size` is its width as a fraction of the canvas width; the height follows
 * the logo's aspect ratio, capped so a tall logo never covers more than 40 % of the height. On
 * YouTube a bottom logo sits above the duration badge.
 */
export function logoRect(
  canvas: Dimensions,
  placement: { position: LogoPosition; size: number },
  aspect: number,
  format?: Format,
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
  let y = placement.position.startsWith('top') ? margin : canvas.height - margin - height;
  if (format === 'youtube' && placement.position === 'bottom-right') {
    const badge = durationBadgeZone(canvas);
    y = Math.max(margin, Math.min(y, badge.y - margin - height));
  }
  return { x, y, width, height };
}

/**
 * Shrinks `box` away from `obstacle`, vertically or horizontally, whichever keeps more area. A
 * centred box cut from one side is cut as much from the other, so it stays centred.
 */
function avoid(box: Rect, obstacle: Rect, gap: number, symmetric: boolean): Rect {
  if (!intersects(box, obstacle)) return box;
  const candidates: Rect[] = [];
  const fromTop = obstacle.y + obstacle.height / 2 < box.y + box.height / 2;
  const cutY = fromTop ? obstacle.y + obstacle.height + gap - box.y : box.y + box.height - (obstacle.y - gap);
  // A centred title only needs to stay centred across: a vertical cut moves it up or down a little.
  candidates.push({ ...box, y: fromTop ? box.y + cutY : box.y, height: box.height - cutY });
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
