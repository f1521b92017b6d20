import { randomBytes } from 'node:crypto';

export type IdPrefix = 'acc' | 'job' | 'gen' | 'ref' | 'evt' | 'req' | 'upl';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function randomPart(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += CROCKFORD[b % 32];
  return out;
}

/** `prefix_` + 10 characters of millisecond time + 16 random characters: sortable by creation time. */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  return `${prefix}_${encodeTime(now)}${randomPart(16)}`;
}

/** The generation of a job is derived from the job id, so a re-delivered job renders into the same object. */
export function generationIdFor(jobId: string): string {
  return `gen_${jobId.slice(jobId.indexOf('_') + 1)}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`) && id.length > prefix.length + 1;
}
