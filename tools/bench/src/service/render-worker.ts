import type { JobSpec } from '@thumbforge/contracts';
import { Renderer, type RenderedImage } from '@thumbforge/design-engine';

const renderer = new Renderer();

/** A piscina task: one render in this worker thread, with its own engine caches. */
export default function render(job: JobSpec): Promise<RenderedImage> {
  return renderer.render(job, {});
}
