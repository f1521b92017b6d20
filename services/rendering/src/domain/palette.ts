import type { Category } from '@thumbforge/contracts';
import { darkenTo, luminance, mix, parseHex, readableOn, saturation, toHex, type Rgb } from './colour.js';

/** Colours of one thumbnail, all as #rrggbb. */
export interface Palette {
  /** Background gradient: `from` lies behind the title, `to` on the opposite side. */
  from: string;
  to: string;
  /** Shapes, the underline bar and the emphasised title line. */
  accent: string;
  /** Title text, readable over `from` and the middle of the gradient. */
  title: string;
  /** The emphasised title line, also readable there. */
  emphasis: string;
  /** Drop shadows and outlines. */
  shadow: string;
}

export type ConcreteCategory = Exclude<Category, 'auto'>;

interface Swatch {
  from: string;
  to: string;
  accent: string;
}

/** One strong, recognisable scheme per category: a dark title side, a saturated far side, a bright accent. */
const SWATCHES: Record<ConcreteCategory, Swatch> = {
  'tech-saas': { from: '#0b1437', to: '#1d4ed8', accent: '#22d3ee' },
  'business-finance': { from: '#04261a', to: '#059669', accent: '#facc15' },
  'education-tutorial': { from: '#1e1b4b', to: '#7c3aed', accent: '#fde047' },
  'fitness-wellness': { from: '#2a0a0a', to: '#ea580c', accent: '#bef264' },
  'medical-healthcare': { from: '#062a3a', to: '#0891b2', accent: '#5eead4' },
  'lifestyle-vlog': { from: '#3b0a2a', to: '#f472b6', accent: '#fde68a' },
  'food-cooking': { from: '#3a1203', to: '#f59e0b', accent: '#fef08a' },
  travel: { from: '#082f49', to: '#06b6d4', accent: '#fbbf24' },
  gaming: { from: '#1a0536', to: '#c026d3', accent: '#4ade80' },
  'entertainment-comedy': { from: '#3f0314', to: '#f43f5e', accent: '#facc15' },
  'news-commentary': { from: '#0f1115', to: '#b91c1c', accent: '#fbbf24' },
  'creative-design': { from: '#2e1065', to: '#ec4899', accent: '#67e8f9' },
};

export const CONCRETE_CATEGORIES = Object.keys(SWATCHES) as ConcreteCategory[];

/** FNV-1a over the UTF-16 code units: a stable, well-spread hash of a title. */
export function hashTitle(title: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < title.length; i++) {
    hash ^= title.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** `auto` picks a category from the title, so one title always looks the same. */
export function resolveCategory(category: Category, title: string): ConcreteCategory {
  if (category !== 'auto') return category;
  return CONCRETE_CATEGORIES[hashTitle(title) % CONCRETE_CATEGORIES.length]!;
}

export function paletteFor(category: Category, title: string): Palette {
  const swatch = SWATCHES[resolveCategory(category, title)];
  return finish(parseHex(swatch.from), parseHex(swatch.to), parseHex(swatch.accent));
}

/**
 * A palette taken from a reference set's colours (dominant and mean colour of each image): the
 * darkest becomes the title side, the most colourful the far side and the accent. Falls back to the
 * category's palette when there are no colours.
 */
export function paletteFromColours(colours: Rgb[], category: Category, title: string): Palette {
  if (colours.length === 0) return paletteFor(category, title);
  const byLuminance = [...colours].sort((a, b) => luminance(a) - luminance(b));
  const byColourfulness = [...colours].sort(
    (a, b) => saturation(b) - saturation(a) || luminance(b) - luminance(a),
  );
  const vivid = byColourfulness[0]!;
  const from = darkenTo(byLuminance[0]!, 0.03);
  const to = luminance(vivid) > 0.45 ? darkenTo(vivid, 0.45) : vivid;
  const accent =
    saturation(vivid) < 0.25 ? parseHex('#facc15') : mix(vivid, { r: 255, g: 255, b: 255 }, 0.25);
  return finish(from, to, accent);
}

/** The title sits over `from` and reaches into the middle of the gradient: it must read on both. */
function finish(from: Rgb, to: Rgb, accent: Rgb): Palette {
  const backdrops = [from, mix(from, to, 0.5)];
  return {
    from: toHex(from),
    to: toHex(to),
    accent: toHex(accent),
    title: toHex(readableOn({ r: 255, g: 255, b: 255 }, backdrops)),
    emphasis: toHex(readableOn(accent, backdrops)),
    shadow: toHex(darkenTo(from, 0.01)),
  };
}
