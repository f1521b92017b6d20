import { dimensionsOf, type Format, type Model, type OutputFormat } from '@thumbforge/contracts';
import sharp, { type OverlayOptions } from 'sharp';
import { withEncoder } from './encode.js';
import { DISPLAY_FONT } from './fonts.js';

export const PLACEHOLDER_TEXT = 'Thumbforge test image';

/** The image never changes for a (format, model, outputFormat): render each one once per process. */
const cache = new Map<string, Promise<Buffer>>();

/**
 * The public test key's static image: exact dimensions of the format and model, a neutral slate
 * design with "Thumbforge test image" and the size it stands for.
 */
export function renderPlaceholder(format: Format, model: Model, outputFormat: OutputFormat): Promise<Buffer> {
  const key = `${format}:${model}:${outputFormat}`;
  let image = cache.get(key);
  if (!image) {
    image = drawPlaceholder(format, model, outputFormat);
    cache.set(key, image);
    image.catch(() => cache.delete(key));
  }
  return image;
}

async function drawPlaceholder(format: Format, model: Model, outputFormat: OutputFormat): Promise<Buffer> {
  const { width, height } = dimensionsOf(format, model);
  const unit = Math.min(width, height);
  const inset = Math.round(unit * 0.05);
  const background = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
      <defs>
        <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stop-color="#334155"/><stop offset="1" stop-color="#0f172a"/>
        </linearGradient>
      </defs>
      <rect width="100%" height="100%" fill="url(#bg)"/>
      <path d="${diagonalStripes(width, height, Math.round(unit * 0.06))}" fill="#ffffff" fill-opacity="0.035"/>
      <rect x="${inset}" y="${inset}" width="${width - 2 * inset}" height="${height - 2 * inset}"
        rx="${inset / 2}" fill="none" stroke="#94a3b8" stroke-opacity="0.45" stroke-width="${Math.max(2, unit * 0.006)}"
        stroke-dasharray="${unit * 0.03} ${unit * 0.02}"/>
    </svg>`,
  );

  const titleSize = Math.round(Math.min(height * 0.13, width * 0.085));
  const title = await fitText(PLACEHOLDER_TEXT.toUpperCase(), '#f8fafc', titleSize, width * 0.84);
  const caption = await fitText(
    `${width} × ${height}  ·  ${format}  ·  ${model}  ·  ${outputFormat}`.toUpperCase(),
    '#94a3b8',
    Math.round(titleSize * 0.36),
    width * 0.84,
  );
  const gap = Math.round(titleSize * 0.35);
  const top = Math.round((height - (title.height + gap + caption.height)) / 2);
  const layers: OverlayOptions[] = [
    { input: title.data, left: Math.round((width - title.width) / 2), top },
    { input: caption.data, left: Math.round((width - caption.width) / 2), top: top + title.height + gap },
  ];
  return withEncoder(sharp(background).composite(layers).removeAlpha(), outputFormat).toBuffer();
}

/** 45° stripes as one path: librsvg renders an SVG <pattern> several times slower. */
function diagonalStripes(width: number, height: number, stripe: number): string {
  const parts: string[] = [];
  for (let x = 0; x < width + height; x += stripe * 2) {
    parts.push(`M${x} 0L${x + stripe} 0L${x + stripe - height} ${height}L${x - height} ${height}Z`);
  }
  return parts.join('');
}

interface TextImage {
  data: Buffer;
  width: number;
  height: number;
}

/** One line of fixed text in the display font, scaled down if it would be wider than `maxWidth`. */
async function fitText(text: string, colour: string, size: number, maxWidth: number): Promise<TextImage> {
  const rendered = await sharp({
    text: {
      text: `<span foreground="${colour}">${text}</span>`,
      font: `${DISPLAY_FONT.family} ${size}px`,
      fontfile: DISPLAY_FONT.file,
      rgba: true,
      dpi: 72,
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
  if (rendered.info.width <= maxWidth) return { data: rendered.data, ...rendered.info };
  const resized = await sharp(rendered.data)
    .resize({ width: Math.floor(maxWidth) })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { data: resized.data, ...resized.info };
}
