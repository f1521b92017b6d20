import type { Dimensions } from '@thumbforge/contracts';
import type { Palette, Rect, Scene } from '../domain/index.js';

export interface BackgroundOptions {
  canvas: Dimensions;
  scene: Scene;
  palette: Palette;
  /** Varies the shapes per title, deterministically. */
  seed: number;
  /** The accent bar under the title, if there is room for one. */
  bar: Rect | null;
}

/** A small deterministic generator (mulberry32): the same seed always gives the same shapes. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (v: number) => Math.round(v * 10) / 10;

export interface BackgroundSvgs {
  /** Smooth gradients only, drawn at `1 / GRADIENT_SCALE` of the canvas size: to be enlarged. */
  gradients: Buffer;
  /** Crisp shapes on a transparent canvas at full size. */
  shapes: Buffer;
}

/** Gradients lose nothing drawn small and enlarged, and librsvg fills large gradients slowly. */
export const GRADIENT_SCALE = 4;

/**
 * The background as SVG: a gradient from the title side (dark) to the far side (saturated), a glow
 * behind the subject, a vignette; then slanted accent bands, a ring, a dot grid and the accent bar.
 * Only gradients and plain shapes: librsvg renders patterns and filters far slower.
 */
export function backgroundSvgs({ canvas, scene, palette, seed, bar }: BackgroundOptions): BackgroundSvgs {
  const { width: W, height: H } = canvas;
  const rnd = random(seed);
  const unit = Math.min(W, H);
  const photo = scene.photo;
  // Gradient axis: from the title towards the photo, or diagonal when the title is alone.
  const axis =
    photo?.fadeEdge === 'left'
      ? { x1: 0, y1: 0.3, x2: 1, y2: 0.7 }
      : photo?.fadeEdge === 'right'
        ? { x1: 1, y1: 0.3, x2: 0, y2: 0.7 }
        : photo?.fadeEdge === 'top'
          ? { x1: 0.3, y1: 0, x2: 0.7, y2: 1 }
          : { x1: 0, y1: 0, x2: 1, y2: 1 };
  const glowAt = photo
    ? { x: photo.rect.x + photo.rect.width / 2, y: photo.rect.y + photo.rect.height / 2 }
    : { x: W * (0.25 + rnd() * 0.5), y: H * (0.3 + rnd() * 0.4) };
  const farSide = photo ? glowAt : { x: W * (rnd() < 0.5 ? 0.15 : 0.85), y: H * 0.85 };

  const bands: string[] = [];
  const bandCount = 3;
  const slant = H * (0.35 + rnd() * 0.25);
  for (let i = 0; i < bandCount; i++) {
    const x = farSide.x + (i - 1) * unit * (0.22 + rnd() * 0.1) - slant / 2;
    const thickness = unit * (0.05 + rnd() * 0.12);
    const opacity = round(0.08 + rnd() * 0.1);
    bands.push(
      `<path d="M${round(x)} ${-10}L${round(x + thickness)} ${-10}L${round(x + thickness - slant * 2.4)} ${H + 10}L${round(x - slant * 2.4)} ${H + 10}Z" fill="${palette.accent}" fill-opacity="${opacity}"/>`,
    );
  }

  // A ring partly out of frame in the corner opposite the far side.
  const ringX = farSide.x < W / 2 ? W * (0.9 + rnd() * 0.08) : W * (0.02 + rnd() * 0.08);
  const ringY = H * (rnd() < 0.5 ? 0.04 : 0.96);
  const ringR = unit * (0.16 + rnd() * 0.08);
  const ring = `<circle cx="${round(ringX)}" cy="${round(ringY)}" r="${round(ringR)}" fill="none" stroke="${palette.accent}" stroke-opacity="0.3" stroke-width="${round(unit * 0.022)}"/>`;

  // A dot grid near the ring.
  const dots: string[] = [];
  const step = unit * 0.035;
  const dotR = unit * 0.0075;
  const gridX = ringX < W / 2 ? ringX + ringR * 0.6 : ringX - ringR * 0.6 - step * 5;
  const gridY = ringY < H / 2 ? ringY + ringR * 0.7 : ringY - ringR * 0.7 - step * 3;
  for (let row = 0; row < 4; row++) {
    for (let col = 0; col < 6; col++) {
      dots.push(
        `<circle cx="${round(gridX + col * step)}" cy="${round(gridY + row * step)}" r="${round(dotR)}"/>`,
      );
    }
  }

  const barSvg = bar
    ? `<rect x="${round(bar.x)}" y="${round(bar.y)}" width="${round(bar.width)}" height="${round(bar.height)}" rx="${round(bar.height / 2)}" fill="${palette.accent}"/>`
    : '';
  // Without a photo the title sits mid-canvas: a dark pool behind it keeps it readable.
  const scrim = photo
    ? ''
    : `<ellipse cx="${W / 2}" cy="${H / 2}" rx="${round(W * 0.55)}" ry="${round(H * 0.5)}" fill="url(#scrim)"/>`;

  const small = (v: number) => Math.max(1, Math.round(v / GRADIENT_SCALE));
  const gradients = `<svg xmlns="http://www.w3.org/2000/svg" width="${small(W)}" height="${small(H)}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none">
  <defs>
    <linearGradient id="base" x1="${axis.x1}" y1="${axis.y1}" x2="${axis.x2}" y2="${axis.y2}">
      <stop offset="0" stop-color="${palette.from}"/>
      <stop offset="0.45" stop-color="${palette.from}" stop-opacity="0.92"/>
      <stop offset="1" stop-color="${palette.to}"/>
    </linearGradient>
    <radialGradient id="glow" cx="${round(glowAt.x)}" cy="${round(glowAt.y)}" r="${round(unit * 0.6)}" gradientUnits="userSpaceOnUse">
      <stop offset="0" stop-color="${palette.accent}" stop-opacity="0.45"/>
      <stop offset="1" stop-color="${palette.accent}" stop-opacity="0"/>
    </radialGradient>
    <radialGradient id="scrim">
      <stop offset="0" stop-color="${palette.from}" stop-opacity="0.8"/>
      <stop offset="0.6" stop-color="${palette.from}" stop-opacity="0.5"/>
      <stop offset="1" stop-color="${palette.from}" stop-opacity="0"/>
    </radialGradient>
    <radialGradient id="vignette" cx="0.5" cy="0.5" r="0.75">
      <stop offset="0.55" stop-color="#000000" stop-opacity="0"/>
      <stop offset="1" stop-color="#000000" stop-opacity="0.5"/>
    </radialGradient>
  </defs>
  <rect width="${W}" height="${H}" fill="${palette.to}"/>
  <rect width="${W}" height="${H}" fill="url(#base)"/>
  <rect width="${W}" height="${H}" fill="url(#glow)"/>
  ${scrim}
  <rect width="${W}" height="${H}" fill="url(#vignette)"/>
</svg>`;
  const shapes = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
  ${bands.join('\n  ')}
  ${ring}
  <g fill="${palette.accent}" fill-opacity="0.45">${dots.join('')}</g>
  ${barSvg}
</svg>`;
  return { gradients: Buffer.from(gradients), shapes: Buffer.from(shapes) };
}
