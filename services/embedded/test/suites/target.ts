/**
 * What the shared suites need from a running Thumbforge: its address and a way to let a second pass
 * between tests. Embedded runs move a test clock; a cluster runs on real time with rate limits set
 * high enough that consecutive tests never meet them.
 */
export interface ApiTarget {
  url: string;
  /** Base of `imageUrl` links (`CDN_URL`). */
  cdnUrl: string;
  /** The service's current time, which decides the credit period. */
  now(): Date;
  /** Called before every test. */
  tick(): void;
  close(): Promise<void>;
}

/** `X-RateLimit-Reset`: the first instant of the next calendar month (UTC). */
export function periodReset(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
    .toISOString()
    .replace('.000Z', 'Z');
}
