import { Injectable } from '@nestjs/common';
import { dimensionsOf, type Format, type JobSpec, type LogoPlacement } from '@thumbforge/contracts';
import { withEncoder } from '@thumbforge/imaging';
import sharp from 'sharp';
import { designThumbnail, logoRect, type Design, type Rect, type TextMeasurer } from '../domain/index.js';
import { paintBackground } from './backgrounds.js';
import { copyCanvas, paintSprite, type Canvas } from './canvas.js';
import { titleColours } from './contrast.js';
import { logoAspect, logoSprites } from './logo.js';
import { photoSprite } from './photo.js';
import { referenceProfile } from './references.js';
import { Shaper } from './shaper.js';
import { backdropAreas, paintTitle, type TitleColours } from './title.js';

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

/** Everything a render draws, before encoding. */
export interface Composition {
  canvas: Canvas;
  design: Design;
  colours: TitleColours | null;
  /** The picture just before the title was drawn (only when asked for): what the title is read against. */
  backdrop: Canvas | null;
  logo: Rect | null;
}

/** Where an inline logo goes when the job carries no saved placement: clear of YouTube's duration badge. */
export function defaultLogoPlacement(format: Format): Omit<LogoPlacement, 'key'> {
  return { position: format === 'youtube' ? 'top-right' : 'bottom-right', size: 0.14, dropShadow: true };
}

/**
 * Draws a thumbnail for a job: the category's (or the reference set's) background, the photo as the
 * subject, the title laid out and shaped with HarfBuzz on the bundled fonts, the logo last; then one
 * encode. Deterministic: the same job and inputs always give the same bytes.
 */
@Injectable()
export class Renderer {
  private readonly shaper = new Shaper();
  private readonly measurer: TextMeasurer = {
    measure: (text, font, skew, context) => this.shaper.shape(text, font, skew, context),
    capHeight: (font) => this.shaper.capHeight(font),
  };

  async render(job: JobSpec, inputs: RenderInputs): Promise<RenderedImage> {
    const { canvas } = await this.compose(job, inputs);
    const image = await withEncoder(
      sharp(canvas.data, { raw: { width: canvas.width, height: canvas.height, channels: 3 } }),
      job.outputFormat,
    ).toBuffer();
    return { image, width: canvas.width, height: canvas.height };
  }

  async compose(
    job: JobSpec,
    inputs: RenderInputs,
    options: { keepBackdrop?: boolean } = {},
  ): Promise<Composition> {
    const size = dimensionsOf(job.format, job.model);
    const placement = inputs.logo ? { ...defaultLogoPlacement(job.format), ...job.logo } : null;
    const [aspect, reference] = await Promise.all([
      inputs.logo ? logoAspect(inputs.logo) : Promise.resolve(null),
      inputs.references?.length ? referenceProfile(inputs.references) : Promise.resolve(null),
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

    const [canvas, photo, logoLayers] = await Promise.all([
      paintBackground(design, reference?.colours ?? null),
      inputs.photo && design.template.photo
        ? photoSprite(inputs.photo, design.template.photo, design.palette)
        : Promise.resolve(null),
      inputs.logo && logo && placement
        ? logoSprites(inputs.logo, logo, placement.dropShadow)
        : Promise.resolve([]),
    ]);
    if (photo) paintSprite(canvas, photo);
    const colours = design.layout ? titleColours(canvas, design, backdropAreas(design)) : null;
    const backdrop = options.keepBackdrop ? copyCanvas(canvas) : null;
    if (colours) await paintTitle(canvas, design, this.shaper, colours);
    for (const sprite of logoLayers) paintSprite(canvas, sprite);
    return { canvas, design, colours, backdrop, logo };
  }
}
