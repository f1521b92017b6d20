import { makeEvent, TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { MemoryProjectionStore, type Document } from '@thumbforge/projection-store';
import { describe, expect, it } from 'vitest';
import { RENDER_OUTCOMES_PROJECTION, RenderOutcomes } from './render-outcomes.projection.js';

function outcomeEvent(
  jobId: string,
  type: 'render.succeeded' | 'render.failed',
  offset: number,
): StoredEvent {
  const payload =
    type === 'render.succeeded'
      ? {
          jobId,
          generationId: `gen_${jobId}`,
          accountId: 'acc_1',
          format: 'youtube' as const,
          outputFormat: 'webp' as const,
          width: 1280,
          height: 720,
          bytes: 1,
          resultKey: `results/${jobId}.webp`,
          imageUrl: null,
          webhookUrl: null,
        }
      : { jobId, accountId: 'acc_1', error: 'boom', webhookUrl: null };
  const event = makeEvent(type, jobId, payload as never, { id: `evt_render_${jobId}`, correlationId: jobId });
  return { ...event, topic: TOPICS.jobs, partition: 0, offset };
}

/** A store that counts the puts into the outcomes collection. */
function countingStore() {
  const store = new MemoryProjectionStore();
  const puts: string[] = [];
  const collection = store.collection.bind(store);
  store.collection = <T extends Document>(name: string) => {
    const inner = collection<T>(name);
    if (name !== RENDER_OUTCOMES_PROJECTION) return inner;
    return Object.assign(Object.create(inner) as typeof inner, {
      put: (doc: T) => {
        puts.push(doc.id);
        return inner.put(doc);
      },
    });
  };
  return { store, puts };
}

describe('RenderOutcomes', () => {
  it.each([
    ['the outcome this process recorded', 'render.succeeded', 'render.succeeded', 1],
    ['an outcome another replica recorded', null, 'render.succeeded', 1],
    ['a different outcome than the one recorded', 'render.succeeded', 'render.failed', 2],
  ] as const)('applying %s writes the document %i time(s) in all', async (_, recorded, applied, writes) => {
    const { store, puts } = countingStore();
    const outcomes = new RenderOutcomes(store);
    const event = outcomeEvent('job_1', applied, 7);
    if (recorded) {
      await outcomes.record(
        { id: 'job_1', outcome: recorded === 'render.succeeded' ? 'succeeded' : 'failed', eventId: event.id },
        Promise.resolve(),
      );
    }
    await outcomes.apply(event);
    expect(puts).toHaveLength(writes);
    expect(await outcomes.get('job_1')).toEqual({
      id: 'job_1',
      outcome: applied === 'render.succeeded' ? 'succeeded' : 'failed',
      eventId: event.id,
    });
  });

  it('writes the document once when the projection reaches the event before the append returns', async () => {
    const { store, puts } = countingStore();
    const outcomes = new RenderOutcomes(store);
    const event = outcomeEvent('job_1', 'render.succeeded', 7);
    let acknowledge!: () => void;
    const appended = new Promise<void>((resolve) => (acknowledge = resolve));
    const recording = outcomes.record({ id: 'job_1', outcome: 'succeeded', eventId: event.id }, appended);
    const applying = outcomes.apply(event);
    acknowledge();
    await Promise.all([recording, applying]);
    expect(puts).toEqual(['job_1']);
  });

  it('writes the outcome from the event when the recording write fails', async () => {
    const { store, puts } = countingStore();
    const outcomes = new RenderOutcomes(store);
    const event = outcomeEvent('job_1', 'render.succeeded', 7);
    const appended = Promise.reject(new Error('log unavailable'));
    const recording = outcomes.record({ id: 'job_1', outcome: 'succeeded', eventId: event.id }, appended);
    await expect(recording).rejects.toThrow('log unavailable');
    await outcomes.apply(event);
    expect(puts).toEqual(['job_1']);
    expect(await outcomes.get('job_1')).toMatchObject({ outcome: 'succeeded' });
  });

  it('writes a replayed outcome again once it has passed the one it recorded', async () => {
    const { store, puts } = countingStore();
    const outcomes = new RenderOutcomes(store);
    const event = outcomeEvent('job_1', 'render.succeeded', 7);
    await outcomes.record({ id: 'job_1', outcome: 'succeeded', eventId: event.id }, Promise.resolve());
    await outcomes.apply(event);
    // A rebuilt store replays the log: the same event is applied to a store that may have lost it.
    await outcomes.apply(event);
    expect(puts).toEqual(['job_1', 'job_1']);
  });
});
