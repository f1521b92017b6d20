import { escapeMarkup, type BundledFont } from '@thumbforge/imaging';
import sharp from 'sharp';
import type { Align, Direction, Palette, TitleLayout } from '../domain/index.js';
import { fromLayer, toLayer, type Layer } from './layer.js';

export interface TitleImage {
  /** The title's ink. */
  text: Layer;
  /** The soft drop shadow, `shadowMargin` larger than the text on every side. */
  shadow: Layer;
  shadowMargin: number;
  /** The hard extruded shadow, the size of the text. */
  extrusion: Layer;
  fontSize: number;
}

/**
 * Draws the laid-out lines with Pango in one block (so lines share baselines and the layout's line
 * advance), the emphasis line in its colour. Pango crops to the ink; when that ink is larger than the
 * box (the measured widths are estimates at the edges), the block is drawn again smaller.
 */
export async function drawTitle(
  layout: TitleLayout,
  palette: Palette,
  align: Align,
  direction: Direction,
  box: { width: number; height: number },
  font: BundledFont,
): Promise<TitleImage> {
  const draw = (fontSize: number, colourOf: (line: number) => string, alpha?: string) =>
    pango(
      layout.lines,
      colourOf,
      fontSize,
      layout.lineAdvance * (fontSize / layout.fontSize),
      align,
      direction,
      font,
      alpha,
    );
  const titleColour = (line: number) => (line === layout.emphasisLine ? palette.emphasis : palette.title);

  let fontSize = layout.fontSize;
  let text = await draw(fontSize, titleColour);
  for (let attempt = 0; attempt < 3 && !fitsIn(text, box); attempt++) {
    fontSize =
      Math.floor(fontSize * Math.min(box.width / text.width, box.height / text.height) * 0.98 * 100) / 100;
    text = await draw(fontSize, titleColour);
  }
  if (!fitsIn(text, box))
    text = await toLayer(
      fromLayer(text).resize(Math.floor(box.width), Math.floor(box.height), { fit: 'inside' }),
    );

  const [shadowInk, extrusionInk] = await Promise.all([
    draw(fontSize, () => palette.shadow, '70%'),
    draw(fontSize, () => palette.shadow),
  ]);
  const blur = Math.max(1, fontSize * 0.07);
  const shadowMargin = Math.ceil(blur * 3);
  const shadow = await toLayer(
    fromLayer(await sameSize(shadowInk, text))
      .extend({
        top: shadowMargin,
        bottom: shadowMargin,
        left: shadowMargin,
        right: shadowMargin,
        background: { r: 0, g: 0, b: 0, alpha: 0 },
      })
      .blur(blur),
  );
  return { text, shadow, shadowMargin, extrusion: await sameSize(extrusionInk, text), fontSize };
}

function fitsIn(layer: Layer, box: { width: number; height: number }): boolean {
  return layer.width <= box.width && layer.height <= box.height;
}

async function pango(
  lines: string[],
  colourOf: (line: number) => string,
  fontSize: number,
  lineAdvance: number,
  align: Align,
  direction: Direction,
  font: BundledFont,
  alpha?: string,
): Promise<Layer> {
  const spans = lines.map(
    (line, i) =>
      `<span foreground="${colourOf(i)}"${alpha ? ` fgalpha="${alpha}"` : ''}>${escapeMarkup(line)}</span>`,
  );
  // Absolute line height in 1024ths of a point; at 72 dpi a point is a pixel.
  const markup = `<span line_height="${Math.round(lineAdvance * 1024)}">${spans.join('\n')}</span>`;
  return toLayer(
    sharp({
      text: {
        text: markup,
        font: `${font.family} ${fontSize.toFixed(2)}px`,
        fontfile: font.file,
        dpi: 72,
        rgba: true,
        // Pango mirrors the alignment of right-to-left paragraphs; ask for the mirror to get `align`.
        align: pangoAlign(align, direction),
      },
    }),
  );
}

function pangoAlign(align: Align, direction: Direction): 'left' | 'centre' | 'right' {
  if (align === 'centre' || direction === 'ltr') return align;
  return align === 'left' ? 'right' : 'left';
}

/** The shadows are the same text, so the same ink box, unless the text had to be scaled down. */
async function sameSize(layer: Layer, target: Layer): Promise<Layer> {
  if (layer.width === target.width && layer.height === target.height) return layer;
  return toLayer(fromLayer(layer).resize(target.width, target.height, { fit: 'fill' }));
}
