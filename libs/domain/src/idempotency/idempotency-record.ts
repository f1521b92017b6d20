import type { EventEnvelope, IdempotentResponse, ThumbforgeEvent } from '@thumbforge/contracts';

/** How long a completed key replays its first response (Stripe's window). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Idempotency-Key header values: printable ASCII without spaces, up to 255 characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyRecord {
  accountId: string;
  key: string;
  requestHash: string;
  /** The job of the claim that won: the only request that executes under this key. */
  jobId: string;
  state: 'in-progress' | 'completed' | 'released';
  claimedAt: string;
  /** In progress: until the claim's lock expires; completed: 24 h after the claim; released: now. */
  expiresAt: string;
  response: IdempotentResponse | null;
}

export function idempotencyRecordId(accountId: string, key: string): string {
  return `${accountId}:${key}`;
}

/** Whether a record still decides requests with its key at `at`. */
export function isLive(record: IdempotencyRecord | undefined, at: Date): record is IdempotencyRecord {
  return !!record && Date.parse(record.expiresAt) > at.getTime();
}

/**
 * Folds one idempotency fact into the record of its key. Claims of one account are ordered on the
 * account's partition, so every replica folds the same winner: the first claim while no live record
 * exists. Completion and release only apply to the winner's job.
 */
export function applyIdempotencyEvent(
  current: IdempotencyRecord | undefined,
  event: EventEnvelope | ThumbforgeEvent,
): IdempotencyRecord | undefined {
  const e = event as ThumbforgeEvent;
  switch (e.type) {
    case 'gateway.idempotency-key-claimed': {
      if (isLive(current, new Date(e.occurredAt))) return current;
      const { accountId, key, requestHash, jobId, lockExpiresAt } = e.payload;
      return {
        accountId,
        key,
        requestHash,
        jobId,
        state: 'in-progress',
        claimedAt: e.occurredAt,
        expiresAt: lockExpiresAt,
        response: null,
      };
    }
    case 'gateway.idempotency-key-completed': {
      if (current?.jobId !== e.payload.jobId || current.state === 'completed') return current;
      const expiresAt = new Date(Date.parse(current.claimedAt) + IDEMPOTENCY_WINDOW_MS).toISOString();
      return { ...current, state: 'completed', expiresAt, response: e.payload.response };
    }
    case 'gateway.idempotency-key-released': {
      if (current?.jobId !== e.payload.jobId || current.state !== 'in-progress') return current;
      return { ...current, state: 'released', expiresAt: e.occurredAt };
    }
    default:
      return current;
  }
}

export type IdempotencyDecision =
  | { kind: 'claim' }
  | { kind: 'execute' }
  | { kind: 'conflict' }
  | { kind: 'replay'; record: IdempotencyRecord }
  | { kind: 'wait'; record: IdempotencyRecord };

/**
 * What a request with `requestHash` does given the key's record at `at`: claim a free key, execute
 * its own winning claim (`ownJobId`), refuse another body, replay a completed response, or wait for
 * the winner still running.
 */
export function decideIdempotency(
  record: IdempotencyRecord | undefined,
  request: { requestHash: string; ownJobId: string | null; at: Date },
): IdempotencyDecision {
  if (!isLive(record, request.at)) return { kind: 'claim' };
  if (record.jobId === request.ownJobId) return { kind: 'execute' };
  if (record.requestHash !== request.requestHash) return { kind: 'conflict' };
  if (record.state === 'completed') return { kind: 'replay', record };
  return { kind: 'wait', record };
}
