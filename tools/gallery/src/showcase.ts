import type { Category, Format, JobSpec } from '@thumbforge/contracts';
import { SCRIPT_SAMPLES, type Renderer, type RenderInputs } from '@thumbforge/design-engine';
import type { SampleInputs } from './sheet.js';

/** The thumbnails shown in docs/gallery: one per line of the README, each a real engine output. */
export interface Showcase {
  file: string;
  format: Format;
  category: Category;
  title: string;
  with: Array<'photo' | 'logo' | 'references'>;
}

export const SHOWCASES: readonly Showcase[] = [
  {
    file: 'youtube-tech-title-only.png',
    format: 'youtube',
    category: 'tech-saas',
    title: 'I Tried Every AI Coding Tool So You Do Not Have To',
    with: [],
  },
  {
    file: 'youtube-travel-photo-logo.png',
    format: 'youtube',
    category: 'travel',
    title: '48 Hours in Tokyo on a Budget',
    with: ['photo', 'logo'],
  },
  {
    file: 'instagram-food-emoji.png',
    format: 'instagram',
    category: 'food-cooking',
    title: 'The Best Pizza Dough You Will Ever Make 🍕',
    with: [],
  },
  {
    file: 'x-news-arabic-photo.png',
    format: 'x',
    category: 'news-commentary',
    title: 'ماذا تعني نتائج الانتخابات الجديدة حقا؟',
    with: ['photo'],
  },
  {
    file: 'blogpost-education-japanese.png',
    format: 'blogpost',
    category: 'education-tutorial',
    title: '東京で一番おいしいラーメンの作り方 10選',
    with: [],
  },
  {
    file: 'linkedin-reference-set.png',
    format: 'linkedin',
    category: 'business-finance',
    title: 'Why Every Team Needs a Design System',
    with: ['references'],
  },
];

/** One thumbnail per script, from the engine's sample titles: the first in each script, as WebP. */
export const SCRIPT_SHOWCASES: readonly Showcase[] = [...new Set(SCRIPT_SAMPLES.map((c) => c.script))].map(
  (script) => {
    const { title, category } = SCRIPT_SAMPLES.find((c) => c.script === script)!;
    return {
      file: `scripts/${script.toLowerCase().replace(/[^a-z]+/gu, '-')}.webp`,
      format: 'youtube',
      category,
      title,
      with: [],
    };
  },
);

export function showcaseJob(showcase: Showcase): JobSpec {
  const id = showcase.file.replace(/[^a-z0-9]/gi, '');
  return {
    jobId: `job_showcase${id}`,
    generationId: `gen_showcase${id}`,
    accountId: 'acc_gallery',
    title: showcase.title,
    category: showcase.category,
    model: 'sd',
    outputFormat: showcase.file.endsWith('.webp') ? 'webp' : 'png',
    usePhoto: showcase.with.includes('photo'),
    useLogo: showcase.with.includes('logo'),
    customAssetsId: showcase.with.includes('references') ? 'ref_gallery' : null,
    cost: 10,
    webhookUrl: null,
    requestedAt: '2026-04-27T14:30:00Z',
    format: showcase.format,
    photoKey: null,
    logo: showcase.with.includes('logo')
      ? { key: 'gallery/logo.png', position: 'top-left', size: 0.08, dropShadow: true }
      : null,
    references: null,
  };
}

export async function renderShowcase(
  renderer: Pick<Renderer, 'render'>,
  showcase: Showcase,
  samples: SampleInputs,
): Promise<Buffer> {
  const inputs: RenderInputs = {};
  if (showcase.with.includes('photo')) inputs.photo = samples.photo;
  if (showcase.with.includes('logo')) inputs.logo = samples.logo;
  if (showcase.with.includes('references')) inputs.references = samples.references;
  return (await renderer.render(showcaseJob(showcase), inputs)).image;
}
