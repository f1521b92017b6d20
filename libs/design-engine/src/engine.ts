import {
  dimensionsOf,
  type Format,
  type JobSpec,
  type LogoPlacement,
  type OutputFormat,
} from '@thumbforge/contracts';
import { encodeImage } from '@thumbforge/imaging';
import {
  designThumbnail,
  logoRect,
  type Design,
  type ReferenceProfile,
  type Rect,
  type TextMeasurer,
} from './layout/index.js';
import { paintBackground, renders } from './paint/backgrounds.js';
import { canvasBuffers, copyCanvas, paintSprite, type Canvas } from './paint/canvas.js';
import { titleColours } from './paint/contrast.js';
import { logoAspect, logoSprites } from './paint/logo.js';
import { photoSprite } from './paint/photo.js';
import { referenceProfile } from './paint/references.js';
import { Shaper } from './paint/shaper.js';
import { backdropAreas, paintTitle, type TitleColours } from './paint/title.js';
import { checkpoint } from './paint/abort.js';

export interface RenderInputs {
  photo?: Buffer;
  logo?: Buffer;
  references?: Buffer[];
}

export interface RenderedImage {
  image: Buffer;
  width: number;
  height: number;
}

/** What `design` decides before any pixel is drawn: the layout, plus the facts measured from the inputs. */
export interface Plan {
  design: Design;
  /** Graphemes of the title no bundled font covers: drawn as a visible box, and logged. */
  missing: string[];
  logo: Rect | null;
  reference: ReferenceProfile | null;
  logoDropShadow: boolean;
}

/** A title with characters no bundled font covers, with their code points (U+XXXX), for the log. */
export interface MissingGlyphs {
  jobId: string;
  graphemes: string[];
  codePoints: string[];
}

export interface RendererOptions {
  /** Told of every title with characters no bundled font covers; a JSON line on stderr by default. */
  onMissingGlyphs?: (report: MissingGlyphs) => void;
}

/** Everything a render draws, before encoding. */
export interface Composition {
  canvas: Canvas;
  design: Design;
  colours: TitleColours | null;
  /** The picture just before the title was drawn (only when asked for): what the title is read against. */
  backdrop: Canvas | null;
  logo: Rect | null;
}

export interface PaintOptions {
  /** Keep a copy of the picture just before the title is drawn (`Composition.backdrop`). */
  keepBackdrop?: boolean;
  signal?: AbortSignal;
}

/** Where an inline logo goes when the job carries no saved placement: clear of YouTube's duration badge. */
export function defaultLogoPlacement(format: Format): Omit<LogoPlacement, 'key'> {
  return { position: format === 'youtube' ? 'top-right' : 'bottom-right', size: 0.14, dropShadow: true };
}

/** One encode of raw RGB pixels with the service's encoder settings; an aborted render gets no encode. */
export async function encode(
  canvas: Canvas,
  outputFormat: OutputFormat,
  signal?: AbortSignal,
): Promise<Buffer> {
  checkpoint(signal);
  const image = await encodeImage({ ...canvas, channels: 3 }, outputFormat);
  checkpoint(signal);
  return image;
}

/**
 * The design engine: `design` lays the title out for the job's format and category (HarfBuzz-shaped on
 * the bundled fonts), `paint` draws background, photo, title and logo into one RGB canvas, `encode`
 * writes the single WebP or PNG. `render` is the three in a row. Deterministic: the same job and inputs
 * always give the same bytes. Holds only caches (shaped fonts, backgrounds, sprites), so one instance
 * serves any number of jobs. Each stage takes an optional `AbortSignal`: an aborted render rejects with
 * `RenderAborted` at its next checkpoint (between stages, before each large buffer) and draws nothing
 * further.
 */
export class Renderer {
  private readonly shaper = new Shaper();
  private readonly onMissingGlyphs: (report: MissingGlyphs) => void;

  constructor(options: RendererOptions = {}) {
    this.onMissingGlyphs =
      options.onMissingGlyphs ??
      ((report) => process.stderr.write(`${JSON.stringify({ msg: 'glyphs missing', ...report })}\n`));
  }
  private readonly measurer: TextMeasurer = {
    measure: (text, font, skew, context, rtl) => this.shaper.shape(text, font, skew, context, rtl),
    capHeight: (font) => this.shaper.capHeight(font),
  };

  async render(job: JobSpec, inputs: RenderInputs, signal?: AbortSignal): Promise<RenderedImage> {
    renders.inFlight++;
    try {
      const { canvas } = await this.compose(job, inputs, { signal });
      try {
        return {
          image: await encode(canvas, job.outputFormat, signal),
          width: canvas.width,
          height: canvas.height,
        };
      } finally {
        // Encoded or failed, libvips is done with the pixels and nothing else holds them.
        canvasBuffers.give(canvas.data);
      }
    } finally {
      renders.inFlight--;
    }
  }

  async design(job: JobSpec, inputs: RenderInputs, signal?: AbortSignal): Promise<Plan> {
    checkpoint(signal);
    const size = dimensionsOf(job.format, job.model);
    const placement = inputs.logo ? { ...defaultLogoPlacement(job.format), ...job.logo } : null;
    const [aspect, reference] = await Promise.all([
      inputs.logo ? logoAspect(inputs.logo) : Promise.resolve(null),
      inputs.references?.length ? referenceProfile(inputs.references, signal) : Promise.resolve(null),
    ]);
    const logo = placement && aspect !== null ? logoRect(size, placement, aspect, job.format) : null;
    const design = designThumbnail(
      {
        title: job.title,
        category: job.category,
        format: job.format,
        canvas: size,
        hasPhoto: inputs.photo !== undefined,
        logo,
        reference,
      },
      this.measurer,
    );
    const missing = this.missingGlyphs(design);
    if (missing.length > 0) {
      this.onMissingGlyphs({
        jobId: job.jobId,
        graphemes: missing,
        codePoints: missing.map((g) =>
          [...g].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' '),
        ),
      });
    }
    return { design, missing, logo, reference, logoDropShadow: placement?.dropShadow ?? false };
  }

  private missingGlyphs(design: Design): string[] {
    const missing = new Set<string>();
    for (const piece of design.layout?.pieces ?? []) {
      const font = piece.emphasis ? design.emphasisFont : design.font;
      const shaped = this.shaper.shape(piece.text, font, design.skew, design.context, piece.rtl);
      for (const grapheme of shaped.missing) missing.add(grapheme);
    }
    return [...missing];
  }

  async paint(plan: Plan, inputs: RenderInputs, options: PaintOptions = {}): Promise<Composition> {
    const { design, logo, reference } = plan;
    const { signal } = options;
    checkpoint(signal);
    const [canvas, photo, logoLayers] = await Promise.all([
      paintBackground(design, reference?.colours ?? null, signal),
      inputs.photo && design.template.photo
        ? photoSprite(inputs.photo, design.template.photo, design.palette, signal)
        : Promise.resolve(null),
      inputs.logo && logo ? logoSprites(inputs.logo, logo, plan.logoDropShadow, signal) : Promise.resolve([]),
    ]);
    checkpoint(signal);
    if (photo) paintSprite(canvas, photo);
    const colours = design.layout ? titleColours(canvas, design, backdropAreas(design)) : null;
    const backdrop = options.keepBackdrop ? copyCanvas(canvas) : null;
    if (colours) await paintTitle(canvas, design, this.shaper, colours);
    checkpoint(signal);
    for (const sprite of logoLayers) paintSprite(canvas, sprite);
    return { canvas, design, colours, backdrop, logo };
  }

  /** `design` then `paint`. */
  async compose(job: JobSpec, inputs: RenderInputs, options: PaintOptions = {}): Promise<Composition> {
    return this.paint(await this.design(job, inputs, options.signal), inputs, options);
  }
}
