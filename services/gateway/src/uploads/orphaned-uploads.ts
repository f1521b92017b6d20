import type { ListedObject } from '@thumbforge/object-store';

export const UPLOADS_PREFIX = 'uploads/';

/** `uploads/{accountId}/{jobId}/{name}` → the job id, or null for a key of another shape. */
export function uploadJobId(key: string): string | null {
  const parts = key.split('/');
  return parts.length === 4 && parts[0] === 'uploads' && parts[2]!.startsWith('job_') ? parts[2]! : null;
}

/**
 * The uploads to remove: older than `graceMs` (a request still deciding has its upload younger than
 * that) and belonging to no job billing accepted. Pure: the caller lists and looks jobs up.
 */
export function orphanedUploads(
  listed: ListedObject[],
  acceptedJobs: ReadonlySet<string>,
  now: Date,
  graceMs: number,
): string[] {
  return listed
    .filter(({ key, modifiedAt }) => {
      const jobId = uploadJobId(key);
      return jobId !== null && now.getTime() - modifiedAt.getTime() > graceMs && !acceptedJobs.has(jobId);
    })
    .map(({ key }) => key);
}
