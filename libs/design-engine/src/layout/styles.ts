import type { Category } from '@thumbforge/contracts';
import type { FontId } from '../fonts/catalogue.js';

export type ConcreteCategory = Exclude<Category, 'auto'>;

/** The scene behind the title; each kind is drawn by the background painter. */
export type BackgroundKind =
  | 'grid'
  | 'chart'
  | 'paper'
  | 'speed'
  | 'clinic'
  | 'bokeh'
  | 'burst'
  | 'horizon'
  | 'neon'
  | 'pop'
  | 'bulletin'
  | 'mesh'
  | 'mirror';

/** Colours of one thumbnail, as #rrggbb. */
export interface PaletteSpec {
  /** The background behind the title. */
  base: string;
  /** The background's other end: the far side, the glow. */
  far: string;
  /** Shapes and decoration. */
  accent: string;
  /** Title text. */
  ink: string;
  /** Emphasised words drawn in colour (the `colour` and `marker` emphasis). */
  emphasisInk: string;
  /** The plate behind emphasised words or lines, and its text. */
  plate: string;
  plateInk: string;
  /** Outlines, extrusions and shadows. */
  outline: string;
}

export interface Treatment {
  /** Outline width around the letters, in em; 0 for none. */
  outline: number;
  /** Drop shadow: a copy of the letters offset by dx, dy em, at an opacity of 0 to 1. */
  shadow: { dx: number; dy: number; opacity: number } | null;
  /** Hard extruded shadow down and to the right, in em; 0 for none. */
  extrude: number;
  /**
   * How key words stand apart: `colour` in the emphasis colour, `plate` on a solid plate,
   * `marker` over a highlighter stroke.
   */
  emphasis: 'colour' | 'plate' | 'marker';
  /** `bars`: every line sits on its own solid bar (news tickers). */
  lines: 'plain' | 'bars';
}

export interface Style {
  category: ConcreteCategory;
  /** The display face, an optional face for emphasised words, and a condensed face for long titles. */
  font: FontId;
  emphasisFont: FontId | null;
  condensedFont: FontId;
  uppercase: boolean;
  /** Synthetic oblique for a sense of speed: x += skew · height. */
  skew: number;
  /** Baseline-to-baseline minimum and the clear gap between lines, in em. */
  leading: number;
  lineGap: number;
  mode: 'block' | 'stack';
  background: BackgroundKind;
  /** Whether the background is light (dark text) or dark (light text). */
  light: boolean;
  palettes: PaletteSpec[];
  treatment: Treatment;
}

/** One art direction per category: what a thumbnail designer would reach for in that niche. */
export const STYLES: Record<ConcreteCategory, Style> = {
  'tech-saas': {
    category: 'tech-saas',
    font: 'montserrat-black',
    emphasisFont: null,
    condensedFont: 'anton',
    uppercase: true,
    skew: 0,
    leading: 1.02,
    lineGap: 0.12,
    mode: 'block',
    background: 'grid',
    light: false,
    palettes: [
      {
        base: '#070b24',
        far: '#1d4ed8',
        accent: '#22d3ee',
        ink: '#ffffff',
        emphasisInk: '#22d3ee',
        plate: '#22d3ee',
        plateInk: '#04111f',
        outline: '#01030d',
      },
      {
        base: '#0c0820',
        far: '#7c3aed',
        accent: '#a78bfa',
        ink: '#ffffff',
        emphasisInk: '#5eead4',
        plate: '#5eead4',
        plateInk: '#0c0820',
        outline: '#030108',
      },
    ],
    treatment: { outline: 0, shadow: null, extrude: 0, emphasis: 'colour', lines: 'plain' },
  },
  'business-finance': {
    category: 'business-finance',
    font: 'archivo-black',
    emphasisFont: null,
    condensedFont: 'oswald-bold',
    uppercase: true,
    skew: 0,
    leading: 1.04,
    lineGap: 0.14,
    mode: 'block',
    background: 'chart',
    light: false,
    palettes: [
      {
        base: '#03201a',
        far: '#047857',
        accent: '#facc15',
        ink: '#ffffff',
        emphasisInk: '#facc15',
        plate: '#facc15',
        plateInk: '#052e24',
        outline: '#010d0a',
      },
      {
        base: '#0a1628',
        far: '#0f766e',
        accent: '#fbbf24',
        ink: '#ffffff',
        emphasisInk: '#fbbf24',
        plate: '#fbbf24',
        plateInk: '#0a1628',
        outline: '#02060d',
      },
    ],
    treatment: { outline: 0, shadow: null, extrude: 0, emphasis: 'plate', lines: 'plain' },
  },
  'education-tutorial': {
    category: 'education-tutorial',
    font: 'poppins-extrabold',
    emphasisFont: null,
    condensedFont: 'oswald-bold',
    uppercase: false,
    skew: 0,
    leading: 1.08,
    lineGap: 0.1,
    mode: 'block',
    background: 'paper',
    light: true,
    palettes: [
      {
        base: '#fdf8ec',
        far: '#fde68a',
        accent: '#4f46e5',
        ink: '#1e1b4b',
        emphasisInk: '#1e1b4b',
        plate: '#fde047',
        plateInk: '#1e1b4b',
        outline: '#c7c2b3',
      },
      {
        base: '#eef2ff',
        far: '#c7d2fe',
        accent: '#f97316',
        ink: '#111827',
        emphasisInk: '#111827',
        plate: '#fdba74',
        plateInk: '#111827',
        outline: '#b8bfd9',
      },
    ],
    treatment: { outline: 0, shadow: null, extrude: 0, emphasis: 'marker', lines: 'plain' },
  },
  'fitness-wellness': {
    category: 'fitness-wellness',
    font: 'anton',
    emphasisFont: null,
    condensedFont: 'anton',
    uppercase: true,
    skew: 0.14,
    leading: 0.98,
    lineGap: 0.07,
    mode: 'stack',
    background: 'speed',
    light: false,
    palettes: [
      {
        base: '#120404',
        far: '#c2410c',
        accent: '#f97316',
        ink: '#ffffff',
        emphasisInk: '#bef264',
        plate: '#bef264',
        plateInk: '#1a0505',
        outline: '#7f1d1d',
      },
      {
        base: '#05070d',
        far: '#be123c',
        accent: '#fb7185',
        ink: '#ffffff',
        emphasisInk: '#fde047',
        plate: '#fde047',
        plateInk: '#05070d',
        outline: '#4c0519',
      },
    ],
    treatment: { outline: 0, shadow: null, extrude: 0.055, emphasis: 'colour', lines: 'plain' },
  },
  'medical-healthcare': {
    category: 'medical-healthcare',
    font: 'rubik-black',
    emphasisFont: null,
    condensedFont: 'oswald-bold',
    uppercase: false,
    skew: 0,
    leading: 1.06,
    lineGap: 0.14,
    mode: 'block',
    background: 'clinic',
    light: true,
    palettes: [
      {
        base: '#f0fdfa',
        far: '#99f6e4',
        accent: '#14b8a6',
        ink: '#0f3d3e',
        emphasisInk: '#0f766e',
        plate: '#0f766e',
        plateInk: '#ffffff',
        outline: '#a7d8d2',
      },
      {
        base: '#f0f9ff',
        far: '#bae6fd',
        accent: '#0ea5e9',
        ink: '#0c2d48',
        emphasisInk: '#0369a1',
        plate: '#0369a1',
        plateInk: '#ffffff',
        outline: '#a9cce3',
      },
    ],
    treatment: { outline: 0, shadow: null, extrude: 0, emphasis: 'plate', lines: 'plain' },
  },
  'lifestyle-vlog': {
    category: 'lifestyle-vlog',
    font: 'playfair-black',
    emphasisFont: 'playfair-black-italic',
    condensedFont: 'oswald-bold',
    uppercase: false,
    skew: 0,
    leading: 1.04,
    lineGap: 0.1,
    mode: 'block',
    background: 'bokeh',
    light: true,
    palettes: [
      {
        base: '#fff1f2',
        far: '#fbcfe8',
        accent: '#f472b6',
        ink: '#4a044e',
        emphasisInk: '#be185d',
        plate: '#be185d',
        plateInk: '#ffffff',
        outline: '#e9c6d3',
      },
      {
        base: '#fff7ed',
        far: '#fed7aa',
        accent: '#fb923c',
        ink: '#431407',
        emphasisInk: '#c2410c',
        plate: '#c2410c',
        plateInk: '#ffffff',
        outline: '#ecd2bb',
      },
    ],
    treatment: { outline: 0, shadow: null, extrude: 0, emphasis: 'colour', lines: 'plain' },
  },
  'food-cooking': {
    category: 'food-cooking',
    font: 'lilita-one',
    emphasisFont: null,
    condensedFont: 'oswald-bold',
    uppercase: true,
    skew: 0,
    leading: 1.0,
    lineGap: 0.1,
    mode: 'stack',
    background: 'burst',
    light: false,
    palettes: [
      {
        base: '#2a0d04',
        far: '#c2410c',
        accent: '#fbbf24',
        ink: '#fff7ed',
        emphasisInk: '#fcd34d',
        plate: '#fcd34d',
        plateInk: '#2a0d04',
        outline: '#170701',
      },
      {
        base: '#1f0a12',
        far: '#be123c',
        accent: '#fb923c',
        ink: '#fff1f2',
        emphasisInk: '#fdba74',
        plate: '#fdba74',
        plateInk: '#1f0a12',
        outline: '#12050a',
      },
    ],
    treatment: {
      outline: 0.06,
      shadow: { dx: 0.035, dy: 0.075, opacity: 0.75 },
      extrude: 0,
      emphasis: 'colour',
      lines: 'plain',
    },
  },
  travel: {
    category: 'travel',
    font: 'bebas-neue',
    emphasisFont: null,
    condensedFont: 'bebas-neue',
    uppercase: true,
    skew: 0,
    leading: 0.96,
    lineGap: 0.08,
    mode: 'stack',
    background: 'horizon',
    light: false,
    palettes: [
      {
        base: '#06233f',
        far: '#0ea5e9',
        accent: '#fb923c',
        ink: '#ffffff',
        emphasisInk: '#fcd34d',
        plate: '#fcd34d',
        plateInk: '#06233f',
        outline: '#020c17',
      },
      {
        base: '#1c0f2e',
        far: '#db2777',
        accent: '#fbbf24',
        ink: '#ffffff',
        emphasisInk: '#fde68a',
        plate: '#fde68a',
        plateInk: '#1c0f2e',
        outline: '#0a0512',
      },
    ],
    treatment: {
      outline: 0,
      shadow: { dx: 0.025, dy: 0.045, opacity: 0.55 },
      extrude: 0,
      emphasis: 'colour',
      lines: 'plain',
    },
  },
  gaming: {
    category: 'gaming',
    font: 'russo-one',
    emphasisFont: null,
    condensedFont: 'oswald-bold',
    uppercase: true,
    skew: 0.08,
    leading: 1.02,
    lineGap: 0.12,
    mode: 'block',
    background: 'neon',
    light: false,
    palettes: [
      {
        base: '#0b0220',
        far: '#a21caf',
        accent: '#4ade80',
        ink: '#ffffff',
        emphasisInk: '#4ade80',
        plate: '#4ade80',
        plateInk: '#0b0220',
        outline: '#000000',
      },
      {
        base: '#020617',
        far: '#2563eb',
        accent: '#f43f5e',
        ink: '#ffffff',
        emphasisInk: '#facc15',
        plate: '#facc15',
        plateInk: '#020617',
        outline: '#000000',
      },
    ],
    treatment: { outline: 0.07, shadow: null, extrude: 0.06, emphasis: 'colour', lines: 'plain' },
  },
  'entertainment-comedy': {
    category: 'entertainment-comedy',
    font: 'luckiest-guy',
    emphasisFont: null,
    condensedFont: 'anton',
    uppercase: true,
    skew: 0,
    leading: 1.02,
    lineGap: 0.12,
    mode: 'block',
    background: 'pop',
    light: true,
    palettes: [
      {
        base: '#fde047',
        far: '#fb923c',
        accent: '#ffffff',
        ink: '#111111',
        emphasisInk: '#b91c1c',
        plate: '#dc2626',
        plateInk: '#ffffff',
        outline: '#ffffff',
      },
      {
        base: '#67e8f9',
        far: '#a78bfa',
        accent: '#ffffff',
        ink: '#0f0f1a',
        emphasisInk: '#9d174d',
        plate: '#be185d',
        plateInk: '#ffffff',
        outline: '#ffffff',
      },
    ],
    treatment: { outline: 0, shadow: null, extrude: 0.05, emphasis: 'plate', lines: 'plain' },
  },
  'news-commentary': {
    category: 'news-commentary',
    font: 'oswald-bold',
    emphasisFont: null,
    condensedFont: 'oswald-bold',
    uppercase: true,
    skew: 0,
    leading: 1.0,
    lineGap: 0.06,
    mode: 'block',
    background: 'bulletin',
    light: false,
    palettes: [
      {
        base: '#0b0d12',
        far: '#334155',
        accent: '#dc2626',
        ink: '#ffffff',
        emphasisInk: '#ffffff',
        plate: '#c81e1e',
        plateInk: '#ffffff',
        outline: '#050608',
      },
      {
        base: '#0a1020',
        far: '#1e3a8a',
        accent: '#f59e0b',
        ink: '#ffffff',
        emphasisInk: '#0a1020',
        plate: '#f59e0b',
        plateInk: '#0a1020',
        outline: '#03050b',
      },
    ],
    treatment: { outline: 0, shadow: null, extrude: 0, emphasis: 'plate', lines: 'bars' },
  },
  'creative-design': {
    category: 'creative-design',
    font: 'poppins-extrabold',
    emphasisFont: 'playfair-black-italic',
    condensedFont: 'oswald-bold',
    uppercase: false,
    skew: 0,
    leading: 1.04,
    lineGap: 0.1,
    mode: 'block',
    background: 'mesh',
    light: false,
    palettes: [
      {
        base: '#14072b',
        far: '#db2777',
        accent: '#f59e0b',
        ink: '#ffffff',
        emphasisInk: '#fbbf24',
        plate: '#fbbf24',
        plateInk: '#14072b',
        outline: '#07020f',
      },
      {
        base: '#04151f',
        far: '#0891b2',
        accent: '#f472b6',
        ink: '#ffffff',
        emphasisInk: '#f9a8d4',
        plate: '#f9a8d4',
        plateInk: '#04151f',
        outline: '#01070b',
      },
    ],
    treatment: { outline: 0, shadow: null, extrude: 0, emphasis: 'colour', lines: 'plain' },
  },
};

export const CONCRETE_CATEGORIES = Object.keys(STYLES) as ConcreteCategory[];
