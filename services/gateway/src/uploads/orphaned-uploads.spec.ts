import { describe, expect, it } from 'vitest';
import { orphanedUploads, uploadJobId } from './orphaned-uploads.js';

const now = new Date('2026-01-01T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const GRACE = 15 * 60_000;

describe('uploadJobId', () => {
  it.each([
    ['uploads/acc_1/job_9/photo', 'job_9'],
    ['uploads/acc_1/job_9/logo', 'job_9'],
    ['uploads/acc_1/job_9', null],
    ['uploads/acc_1/ref_9/photo', null],
    ['assets/acc_1/job_9/photo', null],
    ['uploads/acc_1/job_9/photo/extra', null],
  ])('%s → %s', (key, jobId) => {
    expect(uploadJobId(key)).toBe(jobId);
  });
});

describe('orphanedUploads', () => {
  it.each([
    ['an old upload of no job', 'uploads/acc_1/job_a/photo', 20, [], true],
    ['an old upload of an accepted job', 'uploads/acc_1/job_a/photo', 20, ['job_a'], false],
    [
      'a young upload of no job (its request may still be deciding)',
      'uploads/acc_1/job_a/logo',
      5,
      [],
      false,
    ],
    ['an upload exactly at the grace period', 'uploads/acc_1/job_a/logo', 15, [], false],
    ['an old object of another shape', 'uploads/acc_1/readme', 60, [], false],
  ])('%s → removed: %s', (_name, key, age, accepted, removed) => {
    const result = orphanedUploads([{ key, modifiedAt: minutesAgo(age) }], new Set(accepted), now, GRACE);
    expect(result).toEqual(removed ? [key] : []);
  });
});
