import { createHash } from 'node:crypto';

/** A short content hash: cache keys for images that come back job after job (a saved photo or logo). */
export function digest(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('base64url');
}
