import type { JobSpec } from './events/job-spec.js';

/** A youtube sd WebP job with a title and nothing else, for tests; `overrides` sets any field. */
export function exampleJobSpec(overrides: Partial<JobSpec> = {}): JobSpec {
  const jobId = overrides.jobId ?? 'job_1';
  return {
    jobId,
    generationId: `gen_${jobId}`,
    accountId: 'acc_1',
    title: 'A title',
    category: 'auto',
    model: 'sd',
    outputFormat: 'webp',
    usePhoto: false,
    useLogo: false,
    customAssetsId: null,
    cost: 10,
    webhookUrl: null,
    requestedAt: '2026-04-10T12:00:00.000Z',
    format: 'youtube',
    photoKey: null,
    logo: null,
    references: null,
    ...overrides,
  };
}
