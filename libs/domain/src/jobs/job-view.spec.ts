import { describe, expect, it } from 'vitest';
import type { EventEnvelope, RenderedResult, RenderSucceededV1 } from '@thumbforge/contracts';
import { ACCOUNT, ev, jobSpec } from '../../test/fixtures.js';
import { applyJobEvent, currentJobView, foldJobs, isJobEvent, type JobView } from './job-view.js';

const T0 = '2026-04-10T12:00:00.000Z';
const T1 = '2026-04-10T12:00:05.000Z';
const T2 = '2026-04-10T12:00:09.000Z';
const HOOK = 'https://example.com/hook';

const succeeded = (jobId = 'job_a', webhookUrl: string | null = null): RenderSucceededV1 => ({
  jobId,
  generationId: `gen_${jobId}`,
  accountId: ACCOUNT,
  format: 'youtube',
  outputFormat: 'webp',
  width: 1280,
  height: 720,
  bytes: 1234,
  resultKey: `results/${jobId}.webp`,
  imageUrl: `http://cdn/users/${ACCOUNT}/generations/gen_${jobId}.webp`,
  webhookUrl,
});

/** What the view keeps of a success: the render fact without the ids and sizes it holds elsewhere. */
const shown = (jobId = 'job_a'): RenderedResult => {
  const {
    jobId: _jobId,
    accountId: _accountId,
    bytes: _bytes,
    webhookUrl: _webhookUrl,
    ...kept
  } = succeeded(jobId);
  return kept;
};

const reserved = (jobId = 'job_a', webhookUrl: string | null = null, at = T0) =>
  ev(
    'billing.credits-reserved',
    { accountId: ACCOUNT, jobId, amount: 10, job: jobSpec(jobId, { webhookUrl }) },
    at,
  );
const renderOk = (jobId = 'job_a', webhookUrl: string | null = null, at = T1) =>
  ev('render.succeeded', succeeded(jobId, webhookUrl), at);
const renderFailed = (jobId = 'job_a', at = T1) =>
  ev('render.failed', { jobId, accountId: ACCOUNT, error: 'Render timed out', webhookUrl: null }, at);
const hookRequested = (at = T1) =>
  ev(
    'webhook.delivery-requested',
    {
      jobId: 'job_a',
      accountId: ACCOUNT,
      url: HOOK,
      outcome: { event: 'generation.failed', error: 'x' },
      timestamp: '2026-04-10T12:00:05Z',
    },
    at,
  );
const hookFailed = (attempt: number, next: string | null, at = T2) =>
  ev(
    'webhook.attempt-failed',
    { jobId: 'job_a', attempt, status: 500, error: 'HTTP 500', nextAttemptAt: next },
    at,
  );
const hookDelivered = (attempt: number, at = T2) =>
  ev('webhook.delivered', { jobId: 'job_a', attempt, status: 200 }, at);
const hookExhausted = (at = T2) =>
  ev('webhook.exhausted', { jobId: 'job_a', attempts: 4, lastError: 'timeout' }, at);

function view(overrides: Partial<JobView> = {}): JobView {
  return {
    jobId: 'job_a',
    accountId: ACCOUNT,
    status: 'processing',
    reserved: true,
    result: null,
    error: null,
    webhookUrl: null,
    webhook: null,
    acceptedAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}
const asyncView = (overrides: Partial<JobView> = {}) =>
  view({
    webhookUrl: HOOK,
    webhook: { status: 'pending', attempts: 0, lastError: null },
    ...overrides,
  });

describe('isJobEvent', () => {
  it.each([
    [reserved(), true],
    [renderOk(), true],
    [hookExhausted(), true],
    [ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }), false],
    [ev('billing.reservation-requested', { job: jobSpec('job_a') }), false],
  ])('%#', (event, expected) => {
    expect(isJobEvent(event)).toBe(expected);
  });
});

describe('applyJobEvent', () => {
  it.each<[string, JobView | undefined, EventEnvelope, JobView | undefined]>([
    ['a reservation accepts a sync job', undefined, reserved(), view()],
    [
      'a reservation accepts an async job with a pending webhook',
      undefined,
      reserved('job_a', HOOK),
      asyncView(),
    ],
    [
      'a success completes the job',
      view(),
      renderOk(),
      view({ status: 'completed', result: shown(), updatedAt: T1 }),
    ],
    [
      'a failure fails the job',
      view(),
      renderFailed(),
      view({ status: 'failed', error: 'Render timed out', updatedAt: T1 }),
    ],
    [
      'a late failure after success is ignored',
      view({ status: 'completed', result: shown(), updatedAt: T1 }),
      renderFailed('job_a', T2),
      view({ status: 'completed', result: shown(), updatedAt: T1 }),
    ],
    [
      'a late success after failure is ignored',
      view({ status: 'failed', error: 'Render timed out', updatedAt: T1 }),
      renderOk('job_a', null, T2),
      view({ status: 'failed', error: 'Render timed out', updatedAt: T1 }),
    ],
    [
      'a duplicate reservation is ignored',
      view({ status: 'completed', result: shown(), updatedAt: T1 }),
      reserved('job_a', null, T2),
      view({ status: 'completed', result: shown(), updatedAt: T1 }),
    ],
    [
      'a render outcome seen before its reservation creates the view',
      undefined,
      renderOk('job_a', HOOK),
      view({
        reserved: false,
        status: 'completed',
        result: shown('job_a'),
        webhookUrl: HOOK,
        webhook: { status: 'pending', attempts: 0, lastError: null },
        acceptedAt: T1,
        updatedAt: T1,
      }),
    ],
    [
      'a late reservation marks the job reserved and keeps the outcome',
      view({ reserved: false, status: 'failed', error: 'boom', acceptedAt: T1, updatedAt: T1 }),
      reserved('job_a', null, T0),
      view({ status: 'failed', error: 'boom', acceptedAt: T0, updatedAt: T1 }),
    ],
    [
      'a delivery request on a job with a pending webhook only moves its time',
      asyncView(),
      hookRequested(),
      asyncView({ updatedAt: T1 }),
    ],
    [
      'a delivery request creates the webhook state where none was known',
      view(),
      hookRequested(),
      view({ webhookUrl: HOOK, webhook: { status: 'pending', attempts: 0, lastError: null }, updatedAt: T1 }),
    ],
    [
      'a failed attempt counts and stays pending',
      asyncView(),
      hookFailed(1, '2026-04-10T12:00:19Z'),
      asyncView({ webhook: { status: 'pending', attempts: 1, lastError: 'HTTP 500' }, updatedAt: T2 }),
    ],
    [
      'delivery is terminal',
      asyncView({ webhook: { status: 'pending', attempts: 1, lastError: 'HTTP 500' } }),
      hookDelivered(2),
      asyncView({ webhook: { status: 'delivered', attempts: 2, lastError: 'HTTP 500' }, updatedAt: T2 }),
    ],
    [
      'exhaustion fails the webhook',
      asyncView(),
      hookExhausted(),
      asyncView({ webhook: { status: 'failed', attempts: 4, lastError: 'timeout' }, updatedAt: T2 }),
    ],
    [
      'nothing moves a delivered webhook',
      asyncView({ webhook: { status: 'delivered', attempts: 1, lastError: null } }),
      hookFailed(2, null),
      asyncView({ webhook: { status: 'delivered', attempts: 1, lastError: null } }),
    ],
    [
      'nothing moves a failed webhook',
      asyncView({ webhook: { status: 'failed', attempts: 4, lastError: 'timeout' } }),
      hookDelivered(4),
      asyncView({ webhook: { status: 'failed', attempts: 4, lastError: 'timeout' } }),
    ],
    ['another job’s event is ignored', view(), renderOk('job_b'), view()],
    [
      'unrelated events are ignored',
      view(),
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }),
      view(),
    ],
    [
      'unrelated events create nothing',
      undefined,
      ev('billing.reservation-requested', { job: jobSpec('job_a') }),
      undefined,
    ],
  ])('%s', (_name, before, event, expected) => {
    expect(applyJobEvent(before, event)).toEqual(expected);
  });

  it.each([
    ['a terminal job', view({ status: 'completed', result: shown() }), renderFailed()],
    [
      'a terminal webhook',
      asyncView({ webhook: { status: 'delivered', attempts: 1, lastError: null } }),
      hookExhausted(),
    ],
    [
      'an unrelated event',
      view(),
      ev('billing.credits-captured', { accountId: ACCOUNT, jobId: 'job_a', amount: 10 }),
    ],
  ])('returns the same object for %s', (_name, before, event) => {
    expect(applyJobEvent(before, event)).toBe(before);
  });

  it('keeps fields it does not know about (a stored document id)', () => {
    const stored = { ...view(), id: 'job_a' };
    expect(applyJobEvent(stored, renderOk())).toMatchObject({ id: 'job_a', status: 'completed' });
  });
});

describe('a success on the view', () => {
  it('keeps the bucket and an inline image when the fact has them, and no key it lacks', () => {
    const withBoth = ev(
      'render.succeeded',
      { ...succeeded(), resultBucket: 'public', inlineImage: 'UklG' },
      T1,
    );
    expect(applyJobEvent(view(), withBoth)!.result).toEqual({
      ...shown(),
      resultBucket: 'public',
      inlineImage: 'UklG',
    });
    expect(Object.keys(applyJobEvent(view(), renderOk())!.result!)).not.toContain('resultBucket');
  });
});

describe('currentJobView', () => {
  // As a release before this one stored them: the reservation's whole job and the whole render fact.
  const legacy = (overrides: Record<string, unknown> = {}) => {
    const { reserved: _reserved, ...rest } = view();
    return { ...rest, id: 'job_a', spec: jobSpec('job_a'), ...overrides } as unknown as JobView;
  };

  it.each<[string, JobView, JobView]>([
    ['a reserved job', legacy(), { ...view(), id: 'job_a' } as JobView],
    [
      'a job not yet reserved',
      legacy({ spec: null }),
      { ...view({ reserved: false }), id: 'job_a' } as JobView,
    ],
    [
      'a completed job, its result reduced to what is shown',
      legacy({ status: 'completed', result: succeeded() }),
      { ...view({ status: 'completed', result: shown() }), id: 'job_a' } as JobView,
    ],
  ])('converts %s', (_name, stored, expected) => {
    expect(currentJobView(stored)).toEqual(expected);
  });

  it('returns a view in the current shape as it is', () => {
    const current = view();
    expect(currentJobView(current)).toBe(current);
  });

  it('lets a fact applied to an old view leave it alone when ignored and convert it when taken', () => {
    const stored = legacy();
    expect(applyJobEvent(stored, reserved('job_a', null, T2))).toBe(stored);
    expect(applyJobEvent(stored, renderOk())).toEqual({
      ...view({ status: 'completed', result: shown(), updatedAt: T1 }),
      id: 'job_a',
    });
  });
});

describe('foldJobs', () => {
  it.each<[string, EventEnvelope[], Record<string, Pick<JobView, 'status'> & Partial<JobView>>]>([
    ['nothing', [], {}],
    [
      'a sync job that succeeded',
      [reserved(), renderOk()],
      { job_a: { status: 'completed', result: shown() } },
    ],
    [
      'an async job whose webhook was delivered after a retry',
      [reserved('job_a', HOOK), renderFailed(), hookRequested(), hookFailed(1, 'x'), hookDelivered(2)],
      { job_a: { status: 'failed', webhook: { status: 'delivered', attempts: 2, lastError: 'HTTP 500' } } },
    ],
    [
      'duplicates and late outcomes do not change the result',
      [reserved(), renderOk(), renderOk(), renderFailed('job_a', T2), reserved()],
      { job_a: { status: 'completed', error: null } },
    ],
    [
      'two jobs kept apart',
      [reserved('job_a'), reserved('job_b'), renderFailed('job_b')],
      { job_a: { status: 'processing' }, job_b: { status: 'failed' } },
    ],
  ])('%s', (_name, events, expected) => {
    const jobs = foldJobs(events);
    expect(Object.keys(jobs).sort()).toEqual(Object.keys(expected).sort());
    for (const [jobId, fields] of Object.entries(expected)) expect(jobs[jobId]).toMatchObject(fields);
  });
});
