import sharp from 'sharp';
import type { Design, PlacedPiece, Rect, Rgb } from '../layout/index.js';
import { paintSprite, type Canvas, type Mask, type Sprite } from './canvas.js';
import { pixelCaches } from './caches.js';
import { Coverage, FlatPath, paintLayers, type Layer } from './raster.js';
import { EMOJI_DROP, EMOJI_EM, type Shaper, type ShapedText } from './shaper.js';

/** The colours the title is drawn in, after the contrast check on the backdrop. */
export interface TitleColours {
  ink: Rgb;
  emphasisInk: Rgb;
  plate: Rgb;
  plateInk: Rgb;
  outline: Rgb;
  /** Bars behind every line (news style) and the text on them. */
  bar: Rgb;
  barInk: Rgb;
}

interface Placed {
  piece: PlacedPiece;
  shaped: ShapedText;
  ink: 'plain' | 'emphasis' | 'plate' | 'bar';
}

const emojiCache = pixelCaches.emoji;

/** The title's shaped pieces with the colour role each is drawn in. */
function placeTitle(design: Design, shaper: Shaper): Placed[] {
  const layout = design.layout;
  if (!layout) return [];
  const { treatment } = design.style;
  return layout.pieces.map((piece) => {
    const font = piece.emphasis ? design.emphasisFont : design.font;
    const shaped = shaper.shape(piece.text, font, design.skew, design.context, piece.rtl);
    const ink =
      treatment.emphasis === 'plate' && piece.emphasis
        ? 'plate'
        : treatment.lines === 'bars'
          ? 'bar'
          : piece.emphasis
            ? 'emphasis'
            : 'plain';
    return { piece, shaped, ink };
  });
}

/**
 * Where the title's text is read against the backdrop (text on a plate, a bar or the highlighter is
 * read against that instead): each piece's ink across the height of its line, plain pieces and
 * emphasised ones apart.
 */
export function backdropAreas(design: Design): { plain: Rect[]; emphasis: Rect[] } {
  const layout = design.layout;
  const { emphasis, lines } = design.style.treatment;
  if (!layout || lines === 'bars') return { plain: [], emphasis: [] };
  const onPlate = emphasis === 'plate' || emphasis === 'marker';
  const plain: Rect[] = [];
  const emphasised: Rect[] = [];
  for (const line of layout.lines) {
    for (const piece of line.pieces) {
      if (!piece.emphasis) plain.push(pieceRect(piece, line.ink));
      else if (!onPlate) emphasised.push(pieceRect(piece, line.ink));
    }
  }
  return { plain, emphasis: emphasised };
}

function pieceRect(piece: PlacedPiece, lineInk: Rect): Rect {
  const left = piece.x + piece.metrics.inkLeft * piece.size;
  const right = piece.x + piece.metrics.inkRight * piece.size;
  return { x: left, y: lineInk.y, width: right - left, height: lineInk.height };
}

/**
 * Draws the title: soft shadow, extrusion, outline, plates (line bars, emphasis plates or the
 * highlighter), the letters, then emoji. Every mask is rasterised from the same shaped glyphs the
 * layout measured, within the title's bounds plus the room its effects need.
 */
export async function paintTitle(
  canvas: Canvas,
  design: Design,
  shaper: Shaper,
  colours: TitleColours,
): Promise<void> {
  const layout = design.layout;
  if (!layout) return;
  const placed = placeTitle(design, shaper);
  const { treatment } = design.style;
  const sizes = layout.lines.map((l) => l.size);
  const reference = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  const shadow = treatment.shadow;
  const margin = Math.ceil(
    Math.max(...sizes) *
      (treatment.outline +
        treatment.extrude +
        (shadow ? Math.max(Math.abs(shadow.dx), Math.abs(shadow.dy)) : 0)) +
      4,
  );
  const region = clip(
    {
      x: Math.floor(layout.bounds.x) - margin,
      y: Math.floor(layout.bounds.y) - margin,
      width: Math.ceil(layout.bounds.width) + 2 * margin,
      height: Math.ceil(layout.bounds.height) + 2 * margin,
    },
    canvas,
  );
  if (region.width <= 0 || region.height <= 0) return;
  const emoji = loadEmoji(placed);

  // Every glyph is flattened once, per colour role, in the region's pixels; effects reuse the paths.
  const paths = new Map<Placed['ink'], FlatPath>();
  for (const item of placed) {
    let path = paths.get(item.ink);
    if (!path) paths.set(item.ink, (path = new FlatPath()));
    appendGlyphs(path, item, shaper, region);
  }
  const all = new FlatPath();
  for (const path of paths.values()) all.append(path);
  const outline = treatment.outline * reference;
  const layer = (draw: (c: Coverage) => void, colour: Rgb, opacity = 1): Layer => {
    const coverage = new Coverage(region.width, region.height);
    draw(coverage);
    return { coverage, colour, opacity };
  };
  const layers: Layer[] = [];

  if (shadow) {
    const dx = shadow.dx * reference;
    const dy = shadow.dy * reference;
    layers.push(
      layer(
        (c) => {
          for (const [ox, oy] of ringOffsets(outline)) c.fill(all, ox + dx, oy + dy);
        },
        colours.outline,
        shadow.opacity,
      ),
    );
  }

  // The outline is rasterised on its own: the extrusion reuses it at its far end.
  let outlineMask: Mask | null = null;
  if (outline > 0) {
    const coverage = new Coverage(region.width, region.height);
    for (const [ox, oy] of ringOffsets(outline)) coverage.fill(all, ox, oy);
    outlineMask = coverage.toMask(region.x, region.y);
  }

  if (treatment.extrude > 0) {
    const depth = treatment.extrude * reference;
    const end = { x: Math.round(depth * 0.55), y: Math.round(depth) };
    const shade = darker(colours.outline);
    // Copies 1.5 px apart sweep the letters down and to the right, ending in the outlined letters.
    const steps = Math.max(1, Math.ceil(depth / 1.5));
    layers.push(
      layer((c) => {
        for (let k = 1; k <= steps; k++) c.fill(all, (end.x * k) / steps, (end.y * k) / steps);
      }, shade),
    );
    if (outlineMask) {
      layers.push({
        mask: { ...outlineMask, left: region.x + end.x, top: region.y + end.y },
        colour: shade,
        opacity: 1,
      });
    }
  }
  if (outlineMask) layers.push({ mask: outlineMask, colour: colours.outline, opacity: 1 });

  for (const plate of plateShapes(design, shaper, colours)) {
    layers.push(layer((c) => c.fill(plate.path, -region.x, -region.y), plate.colour));
    plate.path.release();
  }

  const roles: Array<[Placed['ink'], Rgb]> = [
    ['plain', colours.ink],
    ['emphasis', colours.emphasisInk],
    ['plate', colours.plateInk],
    ['bar', colours.barInk],
  ];
  for (const [role, colour] of roles) {
    const path = paths.get(role);
    if (path) layers.push(layer((c) => c.fill(path), colour));
  }
  // Every layer is rasterised: the paths' segments go to the next title.
  for (const path of paths.values()) path.release();
  all.release();

  paintLayers(canvas, region, layers);
  for (const sprite of await emoji) paintSprite(canvas, sprite);
}

/** The plates behind the text, one path per colour, in canvas pixels. */
function plateShapes(
  design: Design,
  shaper: Shaper,
  colours: TitleColours,
): Array<{ path: FlatPath; colour: Rgb }> {
  const layout = design.layout!;
  const { treatment } = design.style;
  const out: Array<{ path: FlatPath; colour: Rgb }> = [];
  if (treatment.lines === 'bars') {
    const path = new FlatPath();
    for (const line of layout.lines) {
      if (line.plate) roundRect(path, line.plate, line.size * 0.04);
    }
    out.push({ path, colour: colours.bar });
  }
  if (treatment.emphasis === 'plate' && layout.emphasisPlates.length > 0) {
    const path = new FlatPath();
    for (const rect of layout.emphasisPlates) roundRect(path, rect, rect.height * 0.14);
    out.push({ path, colour: colours.plate });
  }
  if (treatment.emphasis === 'marker' && layout.emphasisPlates.length > 0) {
    const cap = shaper.capHeight(design.font);
    const path = new FlatPath();
    for (const rect of layout.emphasisPlates) {
      const line = layout.lines.find(
        (l) => l.ink.y <= rect.y + 1 && l.ink.y + l.ink.height >= rect.y + rect.height - 1,
      );
      if (!line) continue;
      // A highlighter stroke: a slightly slanted band over the lower half of the capitals.
      const top = line.baseline - cap * line.size * 0.52;
      const bottom = line.baseline + line.size * 0.06;
      const slant = (bottom - top) * 0.18;
      path.polygon([
        [rect.x + slant, top],
        [rect.x + rect.width + slant * 0.4, top + slant * 0.3],
        [rect.x + rect.width - slant * 0.2, bottom],
        [rect.x - slant * 0.6, bottom - slant * 0.2],
      ]);
    }
    out.push({ path, colour: colours.plate });
  }
  return out;
}

function roundRect(path: FlatPath, rect: Rect, radius: number): void {
  path.roundRect(rect.x, rect.y, rect.width, rect.height, radius);
}

function clip(rect: Rect, canvas: Canvas): Rect {
  const x = Math.max(0, rect.x);
  const y = Math.max(0, rect.y);
  return {
    x,
    y,
    width: Math.min(canvas.width, rect.x + rect.width) - x,
    height: Math.min(canvas.height, rect.y + rect.height) - y,
  };
}

/**
 * Offsets (pixels) whose union of glyph copies is the glyphs grown by `radius` (the letters
 * themselves are drawn over it): points on the circle close enough that the scallops between them
 * stay under half a pixel, and four on the half circle so small dots leave no hole.
 */
function ringOffsets(radius: number): Array<readonly [number, number]> {
  if (radius <= 0.25) return [[0, 0]];
  const count = Math.max(6, Math.min(16, Math.ceil(Math.PI / Math.acos(Math.max(-1, 1 - 0.45 / radius)))));
  const out: Array<readonly [number, number]> = [];
  for (let i = 0; i < count; i++) {
    const a = (i / count) * Math.PI * 2;
    out.push([Math.cos(a) * radius, Math.sin(a) * radius]);
  }
  if (radius > 3) {
    for (let i = 0; i < 4; i++) {
      const a = ((i + 0.5) / 4) * Math.PI * 2;
      out.push([Math.cos(a) * radius * 0.5, Math.sin(a) * radius * 0.5]);
    }
  }
  return out;
}

/** Appends a piece's glyph outlines to `path`, in pixels relative to the region's top-left corner. */
function appendGlyphs(path: FlatPath, { piece, shaped }: Placed, shaper: Shaper, region: Rect): void {
  const size = piece.size;
  const ox = piece.x - region.x;
  const oy = piece.baseline - region.y;
  const skew = shaped.skew;
  for (const glyph of shaped.glyphs) {
    const outline = shaper.outline(glyph.font, glyph.glyph);
    // Glyph space (em, y up, slanted by the skew) to pixels: X = ax + x·size + y·sk, Y = ay − y·size.
    const ax = ox + (glyph.x + skew * glyph.y) * size;
    const ay = oy - glyph.y * size;
    const sk = skew * size;
    let i = 0;
    while (i < outline.length) {
      const op = outline[i++]!;
      if (op === 0 || op === 1) {
        const x = outline[i++]!;
        const y = outline[i++]!;
        if (op === 0) path.moveTo(ax + x * size + y * sk, ay - y * size);
        else path.lineTo(ax + x * size + y * sk, ay - y * size);
      } else if (op === 2) {
        const cx = outline[i++]!;
        const cy = outline[i++]!;
        const x = outline[i++]!;
        const y = outline[i++]!;
        path.quadTo(ax + cx * size + cy * sk, ay - cy * size, ax + x * size + y * sk, ay - y * size);
      } else if (op === 3) {
        const c1x = outline[i++]!;
        const c1y = outline[i++]!;
        const c2x = outline[i++]!;
        const c2y = outline[i++]!;
        const x = outline[i++]!;
        const y = outline[i++]!;
        path.cubicTo(
          ax + c1x * size + c1y * sk,
          ay - c1y * size,
          ax + c2x * size + c2y * sk,
          ay - c2y * size,
          ax + x * size + y * sk,
          ay - y * size,
        );
      } else {
        path.close();
      }
    }
    path.close();
  }
}

function darker(colour: Rgb): Rgb {
  return { r: Math.round(colour.r * 0.7), g: Math.round(colour.g * 0.7), b: Math.round(colour.b * 0.7) };
}

/** Each emoji rasterised from its SVG at the size it is drawn, cached by file and size. */
async function loadEmoji(placed: Placed[]): Promise<Sprite[]> {
  const sprites: Array<Promise<Sprite>> = [];
  for (const { piece, shaped } of placed) {
    for (const e of shaped.emoji) {
      const size = Math.max(1, Math.round(EMOJI_EM * piece.size));
      const key = `${e.file}@${size}`;
      let data = emojiCache.get(key);
      if (!data) {
        data = sharp(e.file, { density: Math.max(1, (72 * size) / 36) })
          .resize(size, size, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
          .ensureAlpha()
          .raw()
          .toBuffer()
          .then((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
        emojiCache.set(key, data, size * size * 4);
        data.catch(() => emojiCache.delete(key));
      }
      const left = Math.round(piece.x + e.x * piece.size);
      const top = Math.round(piece.baseline - (EMOJI_EM - EMOJI_DROP) * piece.size);
      sprites.push(data.then((d) => ({ data: d, width: size, height: size, left, top })));
    }
  }
  return Promise.all(sprites);
}
