import { dimensionsOf, type JobSpec } from '@thumbforge/contracts';
import { REQUEST } from '../cluster/latency.js';
import { benchJob } from '../render/fixtures.js';

/** The job the service derives from the bench's request body: the same title, format and output. */
export function jobFromBody(body: { title: string }, n: number): JobSpec {
  return benchJob({
    jobId: `job_bench_${n}`,
    generationId: `gen_bench_${n}`,
    title: body.title,
    // The service's default when a request names no category.
    category: 'auto',
    format: REQUEST.format,
    model: REQUEST.model,
    outputFormat: REQUEST.outputFormat,
  });
}

export const REQUEST_DIMENSIONS = dimensionsOf(REQUEST.format, REQUEST.model);
