import {
  renderedResult,
  type EventEnvelope,
  type JobSpec,
  type RenderedResult,
  type RenderSucceededV1,
  type ThumbforgeEvent,
} from '@thumbforge/contracts';

export type JobStatus = 'processing' | 'completed' | 'failed';
export type WebhookStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookView {
  status: WebhookStatus;
  attempts: number;
  lastError: string | null;
}

/**
 * A job as its status shows it. It keeps no more of its facts than that: one is kept in memory per
 * job for good in embedded mode, and rewritten on each fact in MongoDB.
 */
export interface JobView {
  jobId: string;
  accountId: string | null;
  status: JobStatus;
  /** Whether the reservation fact has been applied. */
  reserved: boolean;
  result: RenderedResult | null;
  error: string | null;
  webhookUrl: string | null;
  /** null for a synchronous job. */
  webhook: WebhookView | null;
  acceptedAt: string;
  updatedAt: string;
}

const JOB_EVENTS = new Set<string>([
  'billing.credits-reserved',
  'render.succeeded',
  'render.failed',
  'webhook.delivery-requested',
  'webhook.attempt-failed',
  'webhook.delivered',
  'webhook.exhausted',
]);

/** Whether an envelope is one of the facts that make up a job's view. */
export function isJobEvent(event: EventEnvelope): boolean {
  return JOB_EVENTS.has(event.type);
}

/** Facts of three topics arrive in any relative order: the view's time only moves forward. */
function later(current: string, at: string): string {
  return at > current ? at : current;
}

/**
 * The times a taken fact leaves on the view, whatever order the topics arrive in: `updatedAt` is the
 * latest fact's, `acceptedAt` the reservation's or, until one is known, the earliest fact's.
 */
function touched(view: JobView, at: string): Pick<JobView, 'acceptedAt' | 'updatedAt'> {
  const earliest = at < view.acceptedAt ? at : view.acceptedAt;
  return { acceptedAt: view.reserved ? view.acceptedAt : earliest, updatedAt: later(view.updatedAt, at) };
}

function isTerminal(status: JobStatus | WebhookStatus): boolean {
  return status !== 'processing' && status !== 'pending';
}

function pendingWebhook(): WebhookView {
  return { status: 'pending', attempts: 0, lastError: null };
}

function blankView(jobId: string, accountId: string | null, webhookUrl: string | null, at: string): JobView {
  return {
    jobId,
    accountId,
    status: 'processing',
    reserved: false,
    result: null,
    error: null,
    webhookUrl,
    webhook: webhookUrl ? pendingWebhook() : null,
    acceptedAt: at,
    updatedAt: at,
  };
}

/** A view as a release before this one stored it: the reservation's whole job, the whole render fact. */
interface StoredJobViewV0 extends Omit<JobView, 'reserved' | 'result'> {
  spec: JobSpec | null;
  result: RenderSucceededV1 | null;
}

/**
 * A stored view in this release's shape: one a release before it stored (`StoredJobViewV0`) is
 * converted, any other is returned as it is.
 */
export function currentJobView<T extends JobView>(stored: T): T {
  if (!('spec' in stored)) return stored;
  const { spec, result, ...rest } = stored as unknown as StoredJobViewV0 & Omit<T, keyof JobView>;
  return { ...rest, reserved: spec !== null, result: result && renderedResult(result) } as unknown as T;
}

/**
 * Applies one fact to a job's view. The job moves processing → completed | failed and never leaves a
 * terminal state (a late or duplicate render outcome is ignored); its webhook moves pending →
 * delivered | failed likewise. Facts come from three topics whose relative order is not guaranteed,
 * so any of them may create the view, and the result does not depend on how they interleave: what a
 * fact is ignored for is decided by facts of its own topic partition only, and every other field is
 * the first non-null value, a maximum or a minimum. Ignored events return the very same object.
 */
export function applyJobEvent(stored: JobView | undefined, event: EventEnvelope): JobView | undefined {
  if (!isJobEvent(event)) return stored;
  const view = stored && currentJobView(stored);
  const fact = event as ThumbforgeEvent;
  const jobId = (fact.payload as { jobId: string }).jobId;
  if (view && view.jobId !== jobId) return stored;
  const at = fact.occurredAt;

  switch (fact.type) {
    case 'billing.credits-reserved': {
      const { job, accountId } = fact.payload;
      if (!view) return { ...blankView(jobId, accountId, job.webhookUrl, at), reserved: true };
      if (view.reserved) return stored;
      // Another topic got here first: fill in what only the reservation knows.
      return {
        ...view,
        accountId: view.accountId ?? accountId,
        reserved: true,
        webhookUrl: view.webhookUrl ?? job.webhookUrl,
        webhook: view.webhook ?? (job.webhookUrl ? pendingWebhook() : null),
        acceptedAt: at,
        updatedAt: later(view.updatedAt, at),
      };
    }
    case 'render.succeeded':
    case 'render.failed': {
      const { accountId, webhookUrl } = fact.payload;
      const current = view ?? blankView(jobId, accountId, webhookUrl, at);
      if (isTerminal(current.status)) return stored;
      const outcome =
        fact.type === 'render.succeeded'
          ? { status: 'completed' as const, result: renderedResult(fact.payload) }
          : { status: 'failed' as const, error: fact.payload.error };
      return {
        ...current,
        ...outcome,
        webhookUrl: current.webhookUrl ?? webhookUrl,
        ...touched(current, at),
      };
    }
    case 'webhook.delivery-requested': {
      const current = view ?? blankView(jobId, fact.payload.accountId, fact.payload.url, at);
      return {
        ...current,
        accountId: current.accountId ?? fact.payload.accountId,
        webhookUrl: current.webhookUrl ?? fact.payload.url,
        webhook: current.webhook ?? pendingWebhook(),
        ...touched(current, at),
      };
    }
    case 'webhook.attempt-failed':
    case 'webhook.delivered':
    case 'webhook.exhausted': {
      const current = view ?? blankView(jobId, null, null, at);
      const webhook = current.webhook ?? pendingWebhook();
      if (isTerminal(webhook.status)) return stored;
      let next: WebhookView;
      if (fact.type === 'webhook.attempt-failed') {
        next = {
          ...webhook,
          attempts: Math.max(webhook.attempts, fact.payload.attempt),
          lastError: fact.payload.error,
        };
      } else if (fact.type === 'webhook.delivered') {
        next = {
          ...webhook,
          status: 'delivered',
          attempts: Math.max(webhook.attempts, fact.payload.attempt),
        };
      } else {
        next = {
          status: 'failed',
          attempts: Math.max(webhook.attempts, fact.payload.attempts),
          lastError: fact.payload.lastError,
        };
      }
      return { ...current, webhook: next, ...touched(current, at) };
    }
    default:
      return stored;
  }
}

/** Every job's view, folded from reservation, render and webhook facts in log order. */
export function foldJobs(events: Iterable<EventEnvelope>): Record<string, JobView> {
  const jobs: Record<string, JobView> = {};
  for (const event of events) {
    if (!isJobEvent(event)) continue;
    const jobId = (event.payload as { jobId: string }).jobId;
    const next = applyJobEvent(jobs[jobId], event);
    if (next) jobs[jobId] = next;
  }
  return jobs;
}
