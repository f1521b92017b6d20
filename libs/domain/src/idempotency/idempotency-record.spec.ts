import type { IdempotentResponse } from '@thumbforge/contracts';
import { describe, expect, it } from 'vitest';
import { ACCOUNT, ev } from '../../test/fixtures.js';
import {
  applyIdempotencyEvent,
  decideIdempotency,
  IDEMPOTENCY_KEY_PATTERN,
  type IdempotencyDecision,
  type IdempotencyRecord,
} from './idempotency-record.js';

const T0 = '2026-04-10T12:00:00.000Z';
const LOCK = '2026-04-10T12:03:00.000Z';
const DAY_LATER = '2026-04-11T12:00:00.000Z';
const ACCEPTED: IdempotentResponse = {
  kind: 'response',
  status: 202,
  body: { jobId: 'job_a', status: 'processing', webhookUrl: 'https://h.example/x' },
};

const claim = (jobId: string, at = T0, requestHash = 'h1', lockExpiresAt = LOCK) =>
  ev(
    'gateway.idempotency-key-claimed',
    { accountId: ACCOUNT, key: 'k', requestHash, jobId, lockExpiresAt },
    at,
  );
const complete = (jobId: string, response: IdempotentResponse = { kind: 'job' }, at = T0) =>
  ev('gateway.idempotency-key-completed', { accountId: ACCOUNT, key: 'k', jobId, response }, at);
const release = (jobId: string, at = T0) =>
  ev('gateway.idempotency-key-released', { accountId: ACCOUNT, key: 'k', jobId }, at);

const fold = (events: ReturnType<typeof claim>[]) =>
  events.reduce<IdempotencyRecord | undefined>(
    (record, event) => applyIdempotencyEvent(record, event),
    undefined,
  );

describe('applyIdempotencyEvent', () => {
  const cases: Array<[string, ReturnType<typeof claim>[], Partial<IdempotencyRecord> | undefined]> = [
    ['nothing claimed', [], undefined],
    [
      'a claim holds the key until its lock expires',
      [claim('job_a')],
      { jobId: 'job_a', state: 'in-progress', expiresAt: LOCK },
    ],
    ['the first of two concurrent claims wins', [claim('job_a'), claim('job_b')], { jobId: 'job_a' }],
    [
      'completion keeps the response for 24 h from the claim',
      [claim('job_a'), complete('job_a', ACCEPTED)],
      { jobId: 'job_a', state: 'completed', expiresAt: DAY_LATER, response: ACCEPTED },
    ],
    [
      'a loser cannot complete the key',
      [claim('job_a'), claim('job_b'), complete('job_b')],
      { jobId: 'job_a', state: 'in-progress' },
    ],
    [
      'completion is decided once',
      [claim('job_a'), complete('job_a', ACCEPTED), complete('job_a')],
      { response: ACCEPTED },
    ],
    [
      'release frees the key at once',
      [claim('job_a'), release('job_a', '2026-04-10T12:00:01.000Z')],
      { state: 'released', expiresAt: '2026-04-10T12:00:01.000Z' },
    ],
    [
      'a completed key is not released',
      [claim('job_a'), complete('job_a'), release('job_a')],
      { state: 'completed' },
    ],
    [
      'a claim after release wins',
      [claim('job_a'), release('job_a'), claim('job_b', '2026-04-10T12:00:01.000Z')],
      { jobId: 'job_b', state: 'in-progress' },
    ],
    ['a claim after the lock expired wins', [claim('job_a'), claim('job_b', LOCK)], { jobId: 'job_b' }],
    [
      'a claim within 24 h of completion loses',
      [claim('job_a'), complete('job_a'), claim('job_b', '2026-04-11T11:59:59.000Z')],
      { jobId: 'job_a' },
    ],
    [
      'a claim 24 h after completion wins',
      [claim('job_a'), complete('job_a'), claim('job_b', DAY_LATER, 'h2')],
      { jobId: 'job_b', requestHash: 'h2', state: 'in-progress' },
    ],
  ];
  it.each(cases)('%s', (_name, events, expected) => {
    const record = fold(events);
    if (expected === undefined) expect(record).toBeUndefined();
    else expect(record).toMatchObject(expected);
  });
});

describe('decideIdempotency', () => {
  const at = new Date('2026-04-10T12:01:00.000Z');
  const inProgress = fold([claim('job_a')]);
  const completed = fold([claim('job_a'), complete('job_a')]);
  const cases: Array<
    [string, IdempotencyRecord | undefined, string | null, string, IdempotencyDecision['kind']]
  > = [
    ['a fresh key is claimed', undefined, null, 'h1', 'claim'],
    ['an expired key is claimed again', fold([claim('job_a', T0, 'h1', T0)]), null, 'h1', 'claim'],
    ['a released key is claimed again', fold([claim('job_a'), release('job_a')]), null, 'h1', 'claim'],
    ['the winner executes', inProgress, 'job_a', 'h1', 'execute'],
    ['another body conflicts while running', inProgress, null, 'h2', 'conflict'],
    ['another body conflicts once completed', completed, 'job_b', 'h2', 'conflict'],
    ['the same body waits for the winner', inProgress, 'job_b', 'h1', 'wait'],
    ['the same body replays a completed key', completed, null, 'h1', 'replay'],
  ];
  it.each(cases)('%s', (_name, record, ownJobId, requestHash, kind) => {
    expect(decideIdempotency(record, { requestHash, ownJobId, at }).kind).toBe(kind);
  });
});

describe('IDEMPOTENCY_KEY_PATTERN', () => {
  it.each([
    ['a UUID', '5f0c1a7e-8d5b-4a55-9b1e-3f1b2c4d5e6f', true],
    ['255 characters', 'k'.repeat(255), true],
    ['empty', '', false],
    ['256 characters', 'k'.repeat(256), false],
    ['a space', 'two words', false],
    ['non-ASCII', 'clé', false],
  ])('%s → %s', (_name, key, ok) => {
    expect(IDEMPOTENCY_KEY_PATTERN.test(key)).toBe(ok);
  });
});
