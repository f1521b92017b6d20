import {
  makeEvent,
  type EventPayloads,
  type EventType,
  type JobSpec,
  type ThumbforgeEvent,
} from '@thumbforge/contracts';

export const ACCOUNT = 'acc_1';

let counter = 0;

/** A catalogue event with a readable id and a fixed time, for tables. */
export function ev<K extends EventType>(
  type: K,
  payload: EventPayloads[K],
  at = '2026-04-10T12:00:00.000Z',
  id = `evt_${++counter}`,
): ThumbforgeEvent {
  const aggregateId = (payload as { accountId?: string | null }).accountId ?? ACCOUNT;
  return makeEvent(type, aggregateId, payload, { id, occurredAt: new Date(at) }) as ThumbforgeEvent;
}

export function jobSpec(jobId: string, overrides: Partial<JobSpec> = {}): JobSpec {
  return {
    jobId,
    generationId: `gen_${jobId}`,
    accountId: ACCOUNT,
    title: 'A title',
    category: 'auto',
    model: 'sd',
    outputFormat: 'webp',
    usePhoto: false,
    useLogo: false,
    customAssetsId: null,
    cost: 10,
    webhookUrl: null,
    requestedAt: '2026-04-10T12:00:00.000Z',
    format: 'youtube',
    photoKey: null,
    logo: null,
    references: null,
    ...overrides,
  };
}
