import { deltaE2000, parseHex, toHex, toLab } from '../layout/index.js';
import { n, type Scene } from './background-scene.js';

/** The base: a gradient from the title (base colour) to the focus (far colour), a glow, a vignette. */
export function smoothLayer(s: Scene): string {
  const { W, H, palette, title, focus, unit } = s;
  const glowRadius = unit * (s.kind === 'mesh' ? 0.55 : 0.62);
  const parts: string[] = [
    `<defs>
      <linearGradient id="base" gradientUnits="userSpaceOnUse" x1="${n(title.x)}" y1="${n(title.y)}" x2="${n(focus.x)}" y2="${n(focus.y)}">
        <stop offset="0" stop-color="${palette.base}"/>
        <stop offset="0.5" stop-color="${palette.base}"/>
        <stop offset="1" stop-color="${palette.far}"/>
      </linearGradient>
      <radialGradient id="glow" gradientUnits="userSpaceOnUse" cx="${n(focus.x)}" cy="${n(focus.y)}" r="${n(glowRadius)}">
        <stop offset="0" stop-color="${palette.far}" stop-opacity="0.9"/>
        <stop offset="0.45" stop-color="${palette.far}" stop-opacity="0.35"/>
        <stop offset="1" stop-color="${palette.far}" stop-opacity="0"/>
      </radialGradient>
      <radialGradient id="vignette" cx="0.5" cy="0.5" r="0.78">
        <stop offset="0.6" stop-color="#000" stop-opacity="0"/>
        <stop offset="1" stop-color="#000" stop-opacity="${s.light ? 0.1 : 0.45}"/>
      </radialGradient>
    </defs>
    <rect width="${W}" height="${H}" fill="url(#base)"/>
    ${s.kind === 'mirror' ? '' : `<rect width="${W}" height="${H}" fill="url(#glow)"/>`}`,
  ];
  parts.push(smoothDecoration(s));
  parts.push(`<rect width="${W}" height="${H}" fill="url(#vignette)"/>`);
  return parts.join('');
}

/**
 * A reference set's look as colour blocks over its dominant colour (the base gradient): each other
 * colour a slanted band on the far side with about its share of the area (together at most 45 % of
 * the width, or of the height when the text is centred). The output's colours then come in roughly
 * the references' proportions.
 */
export function mirrorBands(s: Scene): string {
  const { W, H, template } = s;
  // The heaviest colour is the base, already painted by the gradient; the title's own colour is the
  // references' text, which the title brings.
  const ink = toLab(parseHex(s.palette.ink));
  const others = s.mirror.slice(1).filter((c) => deltaE2000(toLab(c.colour), ink) > 15);
  const total = others.reduce((sum, c) => sum + c.weight, 0);
  const box = template.titleBox;
  const parts: string[] = [];
  const horizontal = template.align === 'centre';
  const span = horizontal ? H : W;
  const slant = (horizontal ? W : H) * 0.18;
  // The bands keep to the space beside (or below) the title box.
  const free = horizontal
    ? template.verticalAlign === 'bottom'
      ? box.y
      : H - (box.y + box.height)
    : template.align === 'right'
      ? box.x
      : W - (box.x + box.width);
  const share = Math.min(total, 0.45, Math.max(0.1, (free - slant / 2) / span));
  // From the far edge inwards, heaviest first: each band's width is its share of the span.
  let edge = 0;
  for (const { colour, weight } of others) {
    const width = total > 0 ? (weight / total) * share * span : 0;
    const from = edge;
    const to = edge + width;
    edge = to;
    const at = (d: number) => {
      if (horizontal) return template.verticalAlign === 'bottom' ? d : H - d;
      return template.align === 'right' ? d : W - d;
    };
    const points = horizontal
      ? [
          [0, at(from) - slant / 2],
          [W, at(from) + slant / 2],
          [W, at(to) + slant / 2],
          [0, at(to) - slant / 2],
        ]
      : [
          [at(from) + slant / 2, 0],
          [at(from) - slant / 2, H],
          [at(to) - slant / 2, H],
          [at(to) + slant / 2, 0],
        ];
    // The outermost band runs off the canvas edge so no sliver of the base shows beyond it.
    if (from === 0) {
      if (horizontal) {
        const off = template.verticalAlign === 'bottom' ? -slant : H + slant;
        points[0]![1] = off;
        points[1]![1] = off;
      } else {
        const off = template.align === 'right' ? -slant : W + slant;
        points[0]![0] = off;
        points[1]![0] = off;
      }
    }
    parts.push(
      `<polygon points="${points.map(([x, y]) => `${n(x!)},${n(y!)}`).join(' ')}" fill="${toHex(colour)}"/>`,
    );
  }
  return parts.join('');
}

/** Soft decoration drawn with the smooth layer: blobs, bokeh, the sun's halo. */
function smoothDecoration(s: Scene): string {
  const { palette, focus, unit, random: rnd, W, H } = s;
  if (s.kind === 'mesh') {
    const blobs = [
      { x: focus.x, y: focus.y, r: unit * 0.55, c: palette.far },
      {
        x: focus.x + (rnd() - 0.5) * unit * 0.6,
        y: H * (0.1 + rnd() * 0.2),
        r: unit * 0.4,
        c: palette.accent,
      },
      { x: W * (rnd() < 0.5 ? 0.05 : 0.95), y: H * (0.85 + rnd() * 0.1), r: unit * 0.35, c: palette.far },
    ];
    return blobs
      .map(
        (
          b,
          i,
        ) => `<radialGradient id="blob${i}" gradientUnits="userSpaceOnUse" cx="${n(b.x)}" cy="${n(b.y)}" r="${n(b.r)}">
          <stop offset="0" stop-color="${b.c}" stop-opacity="0.95"/><stop offset="1" stop-color="${b.c}" stop-opacity="0"/></radialGradient>
          <circle cx="${n(b.x)}" cy="${n(b.y)}" r="${n(b.r)}" fill="url(#blob${i})"/>`,
      )
      .join('');
  }
  if (s.kind === 'bokeh') {
    const dots: string[] = [];
    for (let i = 0; i < 14; i++) {
      const x = focus.x + (rnd() - 0.5) * W * 0.7;
      const y = H * rnd();
      const r = unit * (0.04 + rnd() * 0.12);
      const colour = [palette.accent, palette.far, '#ffffff'][i % 3]!;
      dots.push(
        `<circle cx="${n(x)}" cy="${n(y)}" r="${n(r)}" fill="${colour}" fill-opacity="${n(0.25 + rnd() * 0.35)}"/>`,
      );
    }
    return `<g>${dots.join('')}</g>`;
  }
  if (s.kind === 'horizon') {
    return `<radialGradient id="halo" gradientUnits="userSpaceOnUse" cx="${n(focus.x)}" cy="${n(H * 0.58)}" r="${n(unit * 0.5)}">
      <stop offset="0" stop-color="${palette.accent}" stop-opacity="0.85"/><stop offset="1" stop-color="${palette.accent}" stop-opacity="0"/></radialGradient>
      <rect width="${W}" height="${H}" fill="url(#halo)"/>`;
  }
  return '';
}
