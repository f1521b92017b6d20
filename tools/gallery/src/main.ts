import 'reflect-metadata';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CATEGORIES, FORMATS, MODELS, type Category, type Format, type Model } from '@thumbforge/contracts';
import { Renderer } from '@thumbforge/design-engine';
import { SingleBar, Presets } from 'cli-progress';
import { sampleLogo, samplePhoto, sampleReferences } from './fixtures.js';
import { GALLERY_OPTIONS, renderContactSheet, type GalleryOption } from './sheet.js';
import { renderShowcase, SCRIPT_SHOWCASES, SHOWCASES } from './showcase.js';

const USAGE = `usage: npm run render -- [--out FILE] [--formats a,b] [--categories a,b] [--options a,b] [--model sd|hd] [--tile-height PX]
       npm run render -- --showcase DIR   (writes the docs/gallery thumbnails, one per script too, into DIR)
  formats:    ${FORMATS.join(', ')} (default: all)
  categories: ${CATEGORIES.join(', ')} (default: all)
  options:    ${GALLERY_OPTIONS.join(', ')} (default: plain, photo+logo, references)`;

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

function list<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  fallback: readonly T[],
  name: string,
): T[] {
  if (value === undefined) return [...fallback];
  const items = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const item of items) if (!allowed.includes(item as T)) fail(`unknown ${name}: ${item}`);
  return items as T[];
}

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'contact-sheet.png' },
    formats: { type: 'string' },
    categories: { type: 'string' },
    options: { type: 'string' },
    model: { type: 'string', default: 'sd' },
    'tile-height': { type: 'string', default: '180' },
    showcase: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [photo, logo, references] = await Promise.all([samplePhoto(), sampleLogo(), sampleReferences()]);
const cwd = process.env.INIT_CWD ?? process.cwd();
if (values.showcase) {
  const dir = resolve(cwd, values.showcase);
  const renderer = new Renderer();
  for (const showcase of [...SHOWCASES, ...SCRIPT_SHOWCASES]) {
    await mkdir(dirname(join(dir, showcase.file)), { recursive: true });
    await writeFile(
      join(dir, showcase.file),
      await renderShowcase(renderer, showcase, { photo, logo, references }),
    );
    console.log(`${showcase.file}`);
  }
  process.exit(0);
}

const tileHeight = Number(values['tile-height']);
if (!Number.isInteger(tileHeight) || tileHeight < 40 || tileHeight > 1440)
  fail('--tile-height must be 40 to 1440');
if (!MODELS.includes(values.model as Model)) fail(`unknown model: ${values.model}`);

const sheet = {
  formats: list<Format>(values.formats, FORMATS, FORMATS, 'format'),
  categories: list<Category>(values.categories, CATEGORIES, CATEGORIES, 'category'),
  options: list<GalleryOption>(
    values.options,
    GALLERY_OPTIONS,
    ['plain', 'photo+logo', 'references'],
    'option',
  ),
  model: values.model as Model,
  tileHeight,
};
const bar = new SingleBar(
  { format: 'rendering {bar} {value}/{total} {cell}', hideCursor: true, clearOnComplete: false },
  Presets.shades_classic,
);
const total = sheet.formats.length * sheet.categories.length * sheet.options.length;
bar.start(total, 0, { cell: '' });
const started = performance.now();
const png = await renderContactSheet(
  new Renderer(),
  sheet,
  { photo, logo, references },
  (done, _total, cell) => bar.update(done, { cell: `${cell.format} · ${cell.category} · ${cell.option}` }),
);
bar.stop();
const out = resolve(cwd, values.out!);
await writeFile(out, png);
console.log(`${total} thumbnails in ${((performance.now() - started) / 1000).toFixed(1)} s → ${out}`);
