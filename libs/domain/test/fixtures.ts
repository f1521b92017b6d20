import {
  makeEvent,
  type EventPayloads,
  type EventType,
  type JobSpec,
  type ThumbforgeEvent,
} from '@thumbforge/contracts';
import { exampleJobSpec } from '@thumbforge/contracts/testing';

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
  return exampleJobSpec({ jobId, accountId: ACCOUNT, ...overrides });
}
