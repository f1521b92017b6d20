import { makeEvent, TOPICS, type EventPayloads } from '@thumbforge/contracts';
import { MemoryEventLog } from '@thumbforge/event-log/testing';
import { ReadinessRegistry } from '@thumbforge/platform';
import { describe, expect, it } from 'vitest';
import { Replies } from './replies.js';

const marker = () =>
  makeEvent('log.owner-fenced', `${TOPICS.billing}:0`, { writer: 'billing', partition: 0 });
const decision = (type: 'billing.credits-reserved' | 'billing.credits-rejected', fence: number) => ({
  // The reply tail reads no payload: a minimal one will do.
  ...makeEvent(type, 'acc_1', { accountId: 'acc_1', jobId: 'job_1' } as EventPayloads[typeof type], {
    correlationId: 'job_1',
  }),
  fence,
});

describe('Replies', () => {
  it("answers with the partition owner's decision, not one a fenced-out replica appended", async () => {
    const log = new MemoryEventLog();
    const replies = new Replies(log, new ReadinessRegistry());
    await replies.onApplicationBootstrap();
    const answer = replies.expect('job_1', ['billing.credits-reserved', 'billing.credits-rejected'], 60_000);
    // Markers at offsets 0 and 1: the replica fenced at 0 lost the partition before deciding.
    await log.append(
      TOPICS.billing,
      [marker(), marker(), decision('billing.credits-rejected', 0), decision('billing.credits-reserved', 1)],
      { partition: 0 },
    );
    expect(await answer).toMatchObject({ type: 'billing.credits-reserved', fence: 1 });
    await replies.beforeApplicationShutdown();
  });
});
