import type { EventEnvelope } from '@thumbforge/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyJobEvent, type JobView } from '../src/index.js';
import { ACCOUNT, ev, jobSpec } from './fixtures.js';

const JOB = 'job_1';
const URL = 'https://hooks.example.com/h';
const t = (s: number) => new Date(Date.UTC(2026, 3, 10, 12, 0, s)).toISOString();

type WebhookEnd = 'delivered' | 'exhausted' | 'pending';

/**
 * One job's facts per topic, each topic in its own (causal) order. `clock` gives each fact its time:
 * after crashes and redeliveries, times need not follow the causal order across topics.
 */
function topics(
  failRender: boolean,
  webhookAttempts: number,
  end: WebhookEnd,
  reserved: boolean,
  clock: (n: number) => string,
): EventEnvelope[][] {
  const billing = reserved
    ? [
        ev(
          'billing.credits-reserved',
          { accountId: ACCOUNT, jobId: JOB, amount: 10, job: jobSpec(JOB, { webhookUrl: URL }) },
          clock(1),
        ),
      ]
    : [];
  const jobs = [
    failRender
      ? ev('render.failed', { jobId: JOB, accountId: ACCOUNT, error: 'boom', webhookUrl: URL }, clock(2))
      : ev(
          'render.succeeded',
          {
            jobId: JOB,
            generationId: `gen_${JOB}`,
            accountId: ACCOUNT,
            format: 'x',
            outputFormat: 'webp',
            width: 1200,
            height: 675,
            bytes: 9,
            resultKey: 'r',
            imageUrl: null,
            webhookUrl: URL,
          },
          clock(2),
        ),
  ];
  const outcome = failRender
    ? { event: 'generation.failed' as const, error: 'boom' }
    : {
        event: 'generation.completed' as const,
        generationId: `gen_${JOB}`,
        format: 'x' as const,
        outputFormat: 'webp' as const,
        width: 1200,
        height: 675,
        resultKey: 'r',
        imageUrl: null,
      };
  const webhooks: EventEnvelope[] = [
    ev(
      'webhook.delivery-requested',
      { jobId: JOB, accountId: ACCOUNT, url: URL, outcome, timestamp: t(2) },
      clock(3),
    ),
  ];
  for (let n = 1; n <= webhookAttempts; n++) {
    webhooks.push(
      ev(
        'webhook.attempt-failed',
        { jobId: JOB, attempt: n, status: 500, error: 'HTTP 500', nextAttemptAt: t(10 + n) },
        clock(3 + n),
      ),
    );
  }
  if (end === 'delivered') {
    webhooks.push(
      ev('webhook.delivered', { jobId: JOB, attempt: webhookAttempts + 1, status: 200 }, clock(8)),
    );
  } else if (end === 'exhausted') {
    webhooks.push(
      ev('webhook.exhausted', { jobId: JOB, attempts: webhookAttempts, lastError: 'HTTP 500' }, clock(8)),
    );
  }
  return [billing, jobs, webhooks];
}

function fold(events: EventEnvelope[]): JobView | undefined {
  return events.reduce<JobView | undefined>((view, e) => applyJobEvent(view, e), undefined);
}

describe('job view: independent of how the topics interleave', () => {
  it("any merge of the three topics that keeps each topic in order folds to the same view, whatever the facts' times", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom<WebhookEnd>('delivered', 'exhausted', 'pending'),
        fc.boolean(),
        fc.array(fc.integer({ min: 0, max: 59 }), { minLength: 9, maxLength: 9 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 30 }),
        (failRender, attempts, end, reserved, seconds, picks) => {
          const streams = topics(failRender, attempts, end, reserved, (n) => t(seconds[n]!));
          const inTopicOrder = fold(streams.flat());
          const queues = streams.map((s) => [...s]);
          const merged: EventEnvelope[] = [];
          for (const pick of picks) if (queues[pick]!.length) merged.push(queues[pick]!.shift()!);
          for (const queue of queues) merged.push(...queue);
          expect(fold(merged)).toEqual(inTopicOrder);
        },
      ),
      { numRuns: 500 },
    );
  });
});
