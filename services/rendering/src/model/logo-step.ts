import type { JobSpec } from '@thumbforge/contracts';
import { logoRect } from '../domain/index.js';
import { paintSprite, type Canvas } from '../drawing/canvas.js';
import { logoAspect, logoSprites } from '../drawing/logo.js';
import { defaultLogoPlacement } from '../drawing/renderer.js';

/**
 * The design engine's logo step, for a picture the engine did not draw: the logo at the job's
 * placement (or the engine's default for the format), with its drop shadow, painted last.
 */
export async function paintLogo(canvas: Canvas, job: JobSpec, logo: Buffer): Promise<void> {
  const placement = { ...defaultLogoPlacement(job.format), ...job.logo };
  const rect = logoRect(canvas, placement, await logoAspect(logo), job.format);
  for (const sprite of await logoSprites(logo, rect, placement.dropShadow)) paintSprite(canvas, sprite);
}
