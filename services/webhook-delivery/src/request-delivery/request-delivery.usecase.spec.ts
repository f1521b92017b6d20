import { makeEvent, TOPICS, type EventEnvelope, type StoredEvent } from '@thumbforge/contracts';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TempDataDir } from '../../test/support/temp-data-dir.js';
import { DeliveryProjection } from '../deliveries/delivery-projection.js';
import { RequestDeliveryUseCase } from './request-delivery.usecase.js';

const NOW = new Date('2026-05-01T08:00:00.000Z');

describe('RequestDeliveryUseCase', () => {
  let temp: TempDataDir;
  let deliveries: DeliveryProjection;
  let useCase: RequestDeliveryUseCase;

  beforeEach(async () => {
    temp = await TempDataDir.open();
    deliveries = new DeliveryProjection(new MemoryProjectionStore());
    useCase = new RequestDeliveryUseCase(temp.log, { now: () => NOW }, deliveries);
  });

  afterEach(() => temp.dispose());

  async function onJobs(event: EventEnvelope): Promise<StoredEvent> {
    const [stored] = await temp.log.append(TOPICS.jobs, [event]);
    return stored!;
  }

  const succeeded = (webhookUrl: string | null) =>
    makeEvent(
      'render.succeeded',
      'job_1',
      {
        jobId: 'job_1',
        generationId: 'gen_1',
        accountId: 'acc_1',
        format: 'x',
        outputFormat: 'webp',
        width: 1200,
        height: 675,
        bytes: 1234,
        resultKey: 'results/job_1.webp',
        imageUrl: 'http://cdn.test/users/acc_1/generations/gen_1.webp',
        webhookUrl,
      },
      { correlationId: 'job_1', occurredAt: new Date('2026-04-27T14:30:00.999Z') },
    );

  it('requests the delivery of a completed job on the webhooks topic', async () => {
    const render = await onJobs(succeeded('https://hooks.example.com/t'));
    const requested = await useCase.execute({ event: render });

    expect(requested).toMatchObject({
      topic: TOPICS.webhooks,
      id: 'evt_wh_req_job_1',
      type: 'webhook.delivery-requested',
      aggregateId: 'job_1',
      correlationId: 'job_1',
      causationId: render.id,
      occurredAt: NOW.toISOString(),
      payload: {
        jobId: 'job_1',
        accountId: 'acc_1',
        url: 'https://hooks.example.com/t',
        outcome: {
          event: 'generation.completed',
          generationId: 'gen_1',
          format: 'x',
          outputFormat: 'webp',
          width: 1200,
          height: 675,
          resultKey: 'results/job_1.webp',
          imageUrl: 'http://cdn.test/users/acc_1/generations/gen_1.webp',
        },
        // The render's time at second precision, not the time of the request.
        timestamp: '2026-04-27T14:30:00Z',
      },
    });
    expect(await temp.log.size(TOPICS.webhooks)).toBe(1);
  });

  it('carries the bucket the render kept the result in', async () => {
    const plain = succeeded('https://hooks.example.com/t');
    const event = { ...plain, payload: { ...plain.payload, resultBucket: 'public' as const } };
    const requested = await useCase.execute({ event: await onJobs(event) });
    expect((requested?.payload as { outcome: unknown }).outcome).toHaveProperty('resultBucket', 'public');
  });

  it('requests the delivery of a failed job with its error', async () => {
    const render = await onJobs(
      makeEvent('render.failed', 'job_2', {
        jobId: 'job_2',
        accountId: null,
        error: 'Generation timed out',
        webhookUrl: 'https://hooks.example.com/t',
      }),
    );
    const requested = await useCase.execute({ event: render });
    expect(requested?.payload).toMatchObject({
      accountId: null,
      outcome: { event: 'generation.failed', error: 'Generation timed out' },
    });
  });

  it('requests nothing for a job without a webhookUrl or for other events', async () => {
    expect(await useCase.execute({ event: await onJobs(succeeded(null)) })).toBeNull();
    const other = await onJobs(
      makeEvent('webhook.delivered', 'job_1', { jobId: 'job_1', attempt: 1, status: 200 }),
    );
    expect(await useCase.execute({ event: other })).toBeNull();
    expect(await temp.log.size(TOPICS.webhooks)).toBe(0);
  });

  it('requests nothing when the job already has a delivery', async () => {
    const render = await onJobs(succeeded('https://hooks.example.com/t'));
    const first = await useCase.execute({ event: render });
    await deliveries.apply(first!);

    expect(await useCase.execute({ event: render })).toBeNull();
    expect(await temp.log.size(TOPICS.webhooks)).toBe(1);
  });
});
