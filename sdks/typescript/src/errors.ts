import type { ErrorCode } from './types.js';

/** An error answer of the API, or `NETWORK_ERROR` when no answer came. */
export class ThumbforgeError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | 'NETWORK_ERROR',
    message: string,
    readonly requestId: string | null = null,
    /** From `Retry-After`, when the server sent one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'ThumbforgeError';
  }
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}
