import type { JobSpec } from '@thumbforge/contracts';
import { defaultLogoPlacement } from './engine.js';
import { logoRect } from './layout/index.js';
import { paintSprite, type Canvas } from './paint/canvas.js';
import { logoAspect, logoSprites } from './paint/logo.js';

/**
 * The engine's logo step, for a picture the engine did not draw (an image model's): the logo at the
 * job's placement (or the engine's default for the format), with its drop shadow, painted last.
 */
export async function paintLogo(canvas: Canvas, job: JobSpec, logo: Buffer): Promise<void> {
  const placement = { ...defaultLogoPlacement(job.format), ...job.logo };
  const rect = logoRect(canvas, placement, await logoAspect(logo), job.format);
  for (const sprite of await logoSprites(logo, rect, placement.dropShadow)) paintSprite(canvas, sprite);
}
