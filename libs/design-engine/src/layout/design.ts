import type { Category, Dimensions, Format } from '@thumbforge/contracts';
import type { FontId } from '../fonts/catalogue.js';
import { paletteFromProfile, type ReferenceProfile } from './references.js';
import { hashTitle, resolveCategory } from './categories.js';
import {
  STYLES,
  type BackgroundKind,
  type ConcreteCategory,
  type PaletteSpec,
  type Style,
  type Treatment,
} from './styles.js';
import { planTemplate, type Template } from './templates.js';
import { titleBidi, type Direction } from './bidi.js';
import { cleanTitle, displayTitle } from './case.js';
import { scriptContextOf, titlePieces, type ScriptContext } from './line-breaks.js';
import { keyPieces } from './text.js';
import { layoutTitle, type PieceMetrics, type Rect, type TitleLayout } from './title-layout.js';

/** Shaping-accurate measurement of text in a bundled font, in em. */
export interface TextMeasurer {
  /** `rtl`: the text is one right-to-left stretch of the bidi algorithm. */
  measure(text: string, font: FontId, skew: number, context: ScriptContext, rtl: boolean): PieceMetrics;
  capHeight(font: FontId): number;
}

export interface DesignInput {
  title: string;
  category: Category;
  format: Format;
  canvas: Dimensions;
  hasPhoto: boolean;
  /** The logo's final rectangle, when there is a logo. */
  logo: Rect | null;
  reference: ReferenceProfile | null;
}

export interface Design {
  canvas: Dimensions;
  category: ConcreteCategory;
  style: Style;
  palette: PaletteSpec;
  template: Template;
  background: { kind: BackgroundKind; variant: number };
  /** The title as set (cleaned, capitals when the style uses them). */
  title: string;
  direction: Direction;
  context: ScriptContext;
  font: FontId;
  emphasisFont: FontId;
  skew: number;
  treatment: Treatment;
  /** null when the title has no visible character. */
  layout: TitleLayout | null;
  /** Cap height of the title's smallest line in pixels. */
  capHeight: number;
}

/**
 * Legibility: at the size a feed shows a thumbnail (about 168 × 94 for YouTube) capitals need to be
 * at least 5 to 6 px tall, so the title aims at a cap height of 6.5 % of the image height or more;
 * a short title grows to at most 30 %.
 */
export const MIN_CAP_HEIGHT_SHARE = 0.065;
export const MAX_CAP_HEIGHT_SHARE = 0.3;

/** Plates are measured in em of the line they sit on. */
const EMPHASIS_PLATE = { x: 0.14, y: 0.1 };
const MARKER_PLATE = { x: 0.06, y: 0 };
const LINE_BAR = { x: 0.22, y: 0.12 };

/**
 * Designs a thumbnail: picks the category's style (or the reference set's look), a palette and a
 * template by the title's hash, and lays the title out in the template's box with exact shaped
 * metrics. Pure: the same input and measurer always give the same design.
 */
export function designThumbnail(input: DesignInput, measurer: TextMeasurer): Design {
  const { canvas } = input;
  const category = resolveCategory(input.category, input.title);
  const baseStyle = STYLES[category];
  const clean = cleanTitle(input.title);
  const variant = hashTitle(clean);
  const reference = input.reference;
  const style: Style = reference
    ? {
        ...baseStyle,
        background: 'mirror',
        light: reference.lightness > 60,
        // Vivid references get the loud treatment, calm ones the clean one.
        treatment: reference.vivid
          ? { ...baseStyle.treatment, outline: 0.05, shadow: null, extrude: 0.04, lines: 'plain' }
          : {
              ...baseStyle.treatment,
              outline: 0,
              extrude: 0,
              shadow: { dx: 0.025, dy: 0.045, opacity: 0.45 },
              lines: 'plain',
            },
      }
    : baseStyle;
  // The palette variant also varies the scene's shapes: one background per palette and template, so
  // a process soon has the backgrounds of a category at hand.
  const paletteIndex = (variant >>> 3) % baseStyle.palettes.length;
  const palette = reference ? paletteFromProfile(reference, baseStyle) : baseStyle.palettes[paletteIndex]!;

  const title = displayTitle(input.title, style.uppercase);
  const bidi = titleBidi(title);
  const direction = bidi.direction;
  const context = scriptContextOf(title);
  const pieces = titlePieces(title, context);
  const template = planTemplate(canvas, {
    format: input.format,
    hasPhoto: input.hasPhoto,
    logo: input.logo,
    direction,
    variant,
    length: [...new Intl.Segmenter('und', { granularity: 'grapheme' }).segment(clean)].length,
    placement: reference?.placement ?? null,
  });
  const design = {
    canvas,
    category,
    style,
    palette,
    template,
    background: { kind: style.background, variant: paletteIndex },
    title,
    direction,
    context,
    skew: style.skew,
    treatment: style.treatment,
  };
  if (pieces.length === 0) {
    return { ...design, font: style.font, emphasisFont: style.font, layout: null, capHeight: 0 };
  }

  const emphasis = keyPieces(pieces, clean);
  const treatment = style.treatment;
  const attempt = (font: FontId) => {
    const emphasisFont = style.emphasisFont ?? font;
    const cap = measurer.capHeight(font);
    const layout = layoutTitle({
      pieces,
      emphasis,
      measure: (text, emphasised, rtl) =>
        measurer.measure(text, emphasised ? emphasisFont : font, style.skew, context, rtl),
      box: template.titleBox,
      align: template.align,
      verticalAlign: template.verticalAlign,
      levels: bidi.levels,
      mode: style.mode,
      maxFontSize: (MAX_CAP_HEIGHT_SHARE * canvas.height) / cap,
      minFontSize: (MIN_CAP_HEIGHT_SHARE * canvas.height) / cap,
      maxLines: 4,
      longTitleMaxLines: 9,
      leading: style.leading,
      lineGap: style.lineGap,
      emphasisPlate:
        treatment.emphasis === 'plate'
          ? EMPHASIS_PLATE
          : treatment.emphasis === 'marker'
            ? MARKER_PLATE
            : null,
      linePlate: treatment.lines === 'bars' ? LINE_BAR : null,
      outline: treatment.outline + treatment.extrude,
    });
    return { font, emphasisFont, layout, capHeight: layout.minSize * cap };
  };
  let chosen = attempt(style.font);
  // Long titles switch to the style's condensed face when it sets them larger.
  if (chosen.capHeight < canvas.height * 0.075 && style.condensedFont !== style.font) {
    const condensed = attempt(style.condensedFont);
    if (condensed.capHeight > chosen.capHeight * 1.08) chosen = condensed;
  }
  return { ...design, ...chosen };
}
