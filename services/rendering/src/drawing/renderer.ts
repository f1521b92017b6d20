import { Injectable } from '@nestjs/common';
import { dimensionsOf, type JobSpec, type LogoPlacement } from '@thumbforge/contracts';
import { DISPLAY_FONT, withEncoder } from '@thumbforge/imaging';
import sharp, { type OverlayOptions } from 'sharp';
import {
  directionOf,
  displayTitle,
  hashTitle,
  layoutTitle,
  logoRect,
  paletteFor,
  paletteFromColours,
  planScene,
  titlePieces,
  type Direction,
  type Palette,
  type Rect,
  type Scene,
} from '../domain/index.js';
import { backgroundSvgs } from './background.js';
import { fromLayer, overlay, toLayer } from './layer.js';
import { logoAspect, logoLayers } from './logo.js';
import { measureAll } from './measure.js';
import { photoLayer } from './photo.js';
import { referenceColours } from './references.js';
import { drawTitle } from './title.js';

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

/** Where an inline logo goes when the job carries no saved placement. */
const DEFAULT_LOGO: Omit<LogoPlacement, 'key'> = { position: 'bottom-right', size: 0.15, dropShadow: true };

/** Share of the title box kept for the accent bar under the title. */
const BAR_SHARE = 0.12;

interface TitleLayers {
  layers: OverlayOptions[];
  bar: Rect | null;
}

/**
 * Draws a thumbnail for a job: background by category (or by the reference set's colours), the photo
 * as the subject on one side, the title in the bundled display face on the other, the logo last.
 * Deterministic: the same job and inputs always give the same bytes.
 */
@Injectable()
export class Renderer {
  private readonly font = DISPLAY_FONT;

  async render(job: JobSpec, inputs: RenderInputs): Promise<RenderedImage> {
    const canvas = dimensionsOf(job.format, job.model);
    const { width: W, height: H } = canvas;
    const title = displayTitle(job.title);
    const direction = directionOf(title);

    const palette = inputs.references?.length
      ? paletteFromColours(await referenceColours(inputs.references), job.category, job.title)
      : paletteFor(job.category, job.title);

    const logoPlacement = inputs.logo ? { ...DEFAULT_LOGO, ...job.logo } : null;
    const logoBox =
      inputs.logo && logoPlacement ? logoRect(canvas, logoPlacement, await logoAspect(inputs.logo)) : null;
    const scene = planScene(canvas, { hasPhoto: inputs.photo !== undefined, logo: logoBox, direction });

    const titled = await this.title(title, direction, scene, palette);
    const background = backgroundSvgs({
      canvas,
      scene,
      palette,
      seed: hashTitle(job.title),
      bar: titled.bar,
    });
    // Rasterised small first: given an SVG, sharp would redraw it at the full size to enlarge it.
    const gradients = await toLayer(sharp(background.gradients));

    const layers: OverlayOptions[] = [{ input: background.shapes, left: 0, top: 0 }];
    if (inputs.photo && scene.photo) {
      const { rect } = scene.photo;
      layers.push(overlay(await photoLayer(inputs.photo, scene.photo), rect.x, rect.y));
    }
    layers.push(...titled.layers);
    if (inputs.logo && logoBox && logoPlacement) {
      layers.push(...(await logoLayers(inputs.logo, logoBox, logoPlacement.dropShadow)));
    }

    const image = await withEncoder(
      fromLayer(gradients).resize(W, H, { fit: 'fill', kernel: 'linear' }).composite(layers).removeAlpha(),
      job.outputFormat,
    ).toBuffer();
    return { image, width: W, height: H };
  }

  /** The title with its shadows, centred in its box, and the accent bar under it when it fits. */
  private async title(
    title: string,
    direction: Direction,
    scene: Scene,
    palette: Palette,
  ): Promise<TitleLayers> {
    const pieces = titlePieces(title);
    if (pieces.length === 0) return { layers: [], bar: null };
    const { titleBox: box, align, canvas } = scene;
    const layout = layoutTitle({
      pieces,
      measure: await measureAll([' ', ...pieces.map((p) => p.text)], this.font),
      box: { width: box.width, height: box.height * (1 - BAR_SHARE) },
      maxFontSize: canvas.height * 0.26,
      minFontSize: canvas.height * 0.085,
    });
    const { text, shadow, shadowMargin, extrusion, fontSize } = await drawTitle(
      layout,
      palette,
      align,
      direction,
      box,
      this.font,
    );

    const barHeight = Math.max(4, Math.round(fontSize * 0.1));
    const barGap = Math.round(fontSize * 0.28);
    const withBar = text.height + barGap + barHeight <= box.height;
    const blockHeight = withBar ? text.height + barGap + barHeight : text.height;
    const top = Math.round(box.y + (box.height - blockHeight) / 2);
    const left = Math.round(
      align === 'left'
        ? box.x
        : align === 'right'
          ? box.x + box.width - text.width
          : box.x + (box.width - text.width) / 2,
    );
    const barWidth = Math.max(barHeight * 3, Math.round(Math.min(text.width * 0.4, canvas.width * 0.2)));
    const barLeft =
      align === 'left'
        ? left
        : align === 'right'
          ? left + text.width - barWidth
          : Math.round((canvas.width - barWidth) / 2);
    const bar = withBar
      ? { x: barLeft, y: top + text.height + barGap, width: barWidth, height: barHeight }
      : null;

    const extrude = Math.max(1, Math.round(fontSize * 0.045));
    return {
      layers: [
        overlay(shadow, left - shadowMargin + extrude, top - shadowMargin + extrude * 2),
        overlay(extrusion, left + extrude, top + extrude),
        overlay(text, left, top),
      ],
      bar,
    };
  }
}
