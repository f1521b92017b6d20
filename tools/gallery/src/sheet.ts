import { dimensionsOf, type Category, type Format, type JobSpec, type Model } from '@thumbforge/contracts';
import { escapeMarkup } from '@thumbforge/imaging';
import { FONTS, type Renderer, type RenderInputs } from '@thumbforge/design-engine';
import sharp, { type OverlayOptions } from 'sharp';
import { SAMPLE_TITLES } from './fixtures.js';

export const GALLERY_OPTIONS = ['plain', 'photo', 'logo', 'photo+logo', 'references'] as const;
export type GalleryOption = (typeof GALLERY_OPTIONS)[number];

export interface SheetOptions {
  formats: readonly Format[];
  categories: readonly Category[];
  options: readonly GalleryOption[];
  model: Model;
  /** Height of every tile in the sheet, in pixels. */
  tileHeight: number;
}

export interface SheetCell {
  format: Format;
  category: Category;
  option: GalleryOption;
}

export interface Placed {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface SheetLayout {
  width: number;
  height: number;
  cells: Array<SheetCell & { at: Placed }>;
  labels: Array<{ text: string; left: number; top: number; size: number; colour: string }>;
}

export interface SampleInputs {
  photo: Buffer;
  logo: Buffer;
  references: Buffer[];
}

const GAP = 12;
const MARGIN = 24;
const LABEL_WIDTH = 220;
const HEADER = 40;
const BLOCK_TITLE = 56;

const OPTION_NAMES: Record<GalleryOption, string> = {
  plain: 'Title only',
  photo: 'With photo',
  logo: 'With logo',
  'photo+logo': 'With photo and logo',
  references: 'Mirroring a reference set',
};

/**
 * The sheet's grid: a block per option, in it a row per category and a column per format (each
 * column as wide as its format at the tile height), labelled along the top and the left.
 */
export function sheetLayout(o: SheetOptions): SheetLayout {
  const columnWidths = o.formats.map((f) => {
    const { width, height } = dimensionsOf(f, 'sd');
    return Math.round((o.tileHeight * width) / height);
  });
  const gridWidth = columnWidths.reduce((a, b) => a + b, 0) + GAP * (o.formats.length - 1);
  const width = MARGIN * 2 + LABEL_WIDTH + gridWidth;
  const blockHeight = BLOCK_TITLE + HEADER + o.categories.length * (o.tileHeight + GAP);
  const height = MARGIN * 2 + o.options.length * blockHeight;
  const cells: SheetLayout['cells'] = [];
  const labels: SheetLayout['labels'] = [];
  o.options.forEach((option, b) => {
    const blockTop = MARGIN + b * blockHeight;
    labels.push({ text: OPTION_NAMES[option], left: MARGIN, top: blockTop + 8, size: 30, colour: '#f9fafb' });
    let left = MARGIN + LABEL_WIDTH;
    o.formats.forEach((format, c) => {
      labels.push({ text: format, left, top: blockTop + BLOCK_TITLE + 6, size: 20, colour: '#9ca3af' });
      o.categories.forEach((category, r) => {
        const top = blockTop + BLOCK_TITLE + HEADER + r * (o.tileHeight + GAP);
        if (c === 0)
          labels.push({
            text: category,
            left: MARGIN,
            top: top + o.tileHeight / 2 - 12,
            size: 20,
            colour: '#d1d5db',
          });
        cells.push({
          format,
          category,
          option,
          at: { left, top, width: columnWidths[c]!, height: o.tileHeight },
        });
      });
      left += columnWidths[c]! + GAP;
    });
  });
  return { width, height, cells, labels };
}

export function cellJob(cell: SheetCell, model: Model): JobSpec {
  const id = `${cell.format}_${cell.category}_${cell.option}`.replace(/[^a-z0-9]/gi, '');
  return {
    jobId: `job_gallery${id}`,
    generationId: `gen_gallery${id}`,
    accountId: 'acc_gallery',
    title: SAMPLE_TITLES[cell.category],
    category: cell.category,
    model,
    outputFormat: 'png',
    usePhoto: cell.option === 'photo' || cell.option === 'photo+logo',
    useLogo: cell.option === 'logo' || cell.option === 'photo+logo',
    customAssetsId: cell.option === 'references' ? 'ref_gallery' : null,
    cost: 10,
    webhookUrl: null,
    requestedAt: '2026-04-27T14:30:00Z',
    format: cell.format,
    photoKey: null,
    logo:
      cell.option === 'logo' || cell.option === 'photo+logo'
        ? { key: 'gallery/logo.png', position: 'top-left', size: 0.1, dropShadow: true }
        : null,
    references: null,
  };
}

export function cellInputs(cell: SheetCell, samples: SampleInputs): RenderInputs {
  const inputs: RenderInputs = {};
  if (cell.option === 'photo' || cell.option === 'photo+logo') inputs.photo = samples.photo;
  if (cell.option === 'logo' || cell.option === 'photo+logo') inputs.logo = samples.logo;
  if (cell.option === 'references') inputs.references = samples.references;
  return inputs;
}

/** Renders every cell with the engine, scales it into the grid and writes the sheet as one PNG. */
export async function renderContactSheet(
  renderer: Pick<Renderer, 'render'>,
  o: SheetOptions,
  samples: SampleInputs,
  onCell: (done: number, total: number, cell: SheetCell) => void = () => undefined,
): Promise<Buffer> {
  const layout = sheetLayout(o);
  const overlays: OverlayOptions[] = [];
  let done = 0;
  for (const cell of layout.cells) {
    const { image } = await renderer.render(cellJob(cell, o.model), cellInputs(cell, samples));
    const tile = await sharp(image).resize(cell.at.width, cell.at.height, { fit: 'fill' }).png().toBuffer();
    overlays.push({ input: tile, left: cell.at.left, top: cell.at.top });
    onCell(++done, layout.cells.length, cell);
  }
  const font = FONTS['noto-sans-black'];
  for (const label of layout.labels) {
    const text = await sharp({
      text: {
        text: `<span foreground="${label.colour}">${escapeMarkup(label.text)}</span>`,
        font: `${font.family} ${label.size}px`,
        fontfile: font.file,
        rgba: true,
        dpi: 72,
      },
    })
      .png()
      .toBuffer();
    overlays.push({ input: text, left: label.left, top: Math.round(label.top) });
  }
  return sharp({ create: { width: layout.width, height: layout.height, channels: 3, background: '#111827' } })
    .composite(overlays)
    .png()
    .toBuffer();
}
