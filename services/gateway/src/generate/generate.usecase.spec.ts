import { TOPICS, type EventEnvelope, type JobSpec } from '@thumbforge/contracts';
import { type NormalizedGenerateRequest } from '@thumbforge/contracts/api';
import type { EventLog } from '@thumbforge/event-log';
import type { ObjectStore } from '@thumbforge/object-store';
import { loadConfig, systemClock } from '@thumbforge/platform';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../auth/principal.js';
import type { Replies } from '../messaging/replies.js';
import type { GatewayReadModel } from '../read-model/gateway-read-model.js';
import { GenerateUseCase } from './generate.usecase.js';

const appended: Array<{ topic: string; events: EventEnvelope[] }> = [];
const log = {
  append: async (topic: string, events: EventEnvelope[]) => {
    appended.push({ topic, events });
    return [];
  },
} as unknown as EventLog;
const objects = { put: async () => undefined, delete: async () => undefined } as unknown as ObjectStore;
const config = loadConfig({
  DATA_DIR: '/tmp/tf-generate-test',
  KEY_ENCRYPTION_SECRET: 'b'.repeat(64),
  WEBHOOK_ALLOW_PRIVATE: '1',
});
const useCase = new GenerateUseCase(log, objects, config, systemClock, {} as Replies, {} as GatewayReadModel);

const principal = (plan: 'free' | 'creator' | 'pro' | 'business'): Principal => ({
  kind: 'account',
  accountId: 'acc_1',
  apiKey: 'tf_live_x',
  plan,
  account: { id: 'acc_1', currentKeyHash: null, ledger: null },
});
const request: NormalizedGenerateRequest = {
  title: 't',
  format: 'youtube',
  category: 'auto',
  usePhoto: false,
  useLogo: false,
  photoImage: null,
  logoImage: null,
  customAssetsId: null,
  model: 'sd',
  outputFormat: 'webp',
  webhookUrl: null,
  unusedImages: [],
};

describe('GenerateUseCase: plan features are refused before anything reaches the log', () => {
  it.each([
    ['free', { model: 'hd' }, 403, 'UPGRADE_REQUIRED'],
    ['creator', { model: 'hd' }, 403, 'UPGRADE_REQUIRED'],
    ['free', { webhookUrl: 'http://127.0.0.1:9/h' }, 403, 'WEBHOOKS_NOT_IN_PLAN'],
    ['creator', { webhookUrl: 'http://127.0.0.1:9/h' }, 403, 'WEBHOOKS_NOT_IN_PLAN'],
    ['pro', { photoImage: 'data:image/png;base64,AAAA', usePhoto: true }, 400, 'INVALID_IMAGE'],
    ['pro', { unusedImages: [{ field: 'logoImage', dataUrl: 'garbage' }] }, 400, 'INVALID_IMAGE'],
    [
      'free',
      { unusedImages: [{ field: 'personImage', dataUrl: 'data:image/png;base64,' }] },
      400,
      'INVALID_IMAGE',
    ],
  ] as const)('%s with %j → %i %s', async (plan, change, status, code) => {
    appended.length = 0;
    await expect(
      useCase.execute({
        principal: principal(plan),
        request: { ...request, ...change } as NormalizedGenerateRequest,
      }),
    ).rejects.toMatchObject({
      status,
      code,
    });
    expect(appended).toEqual([]);
  });

  it('refuses a webhook to a metadata address when private targets are not allowed', async () => {
    const strict = new GenerateUseCase(
      log,
      objects,
      { ...config, webhookAllowPrivate: false },
      systemClock,
      {} as Replies,
      {} as GatewayReadModel,
    );
    await expect(
      strict.execute({
        principal: principal('pro'),
        request: { ...request, webhookUrl: 'http://169.254.169.254/latest' },
      }),
    ).rejects.toMatchObject({ status: 400, code: 'UNSAFE_WEBHOOK_URL' });
  });
});

describe('GenerateUseCase: the asset service is asked only about saved assets', () => {
  const rejection = (status: number, code: string, error: string) => ({ reason: { status, code, error } });
  // Billing turns every job down, so a run ends at the reservation with the job as billing got it.
  const replies = {
    expect: (_jobId: string, types: readonly string[]) => {
      if (types.includes('billing.credits-rejected')) {
        return Promise.resolve({
          type: 'billing.credits-rejected',
          payload: rejection(429, 'GENERATION_LIMIT_EXCEEDED', 'Generation limit exceeded'),
        });
      }
      if (types.includes('asset.job-assets-rejected')) {
        return Promise.resolve({
          type: 'asset.job-assets-rejected',
          payload: rejection(
            400,
            'PHOTO_REQUIRED',
            'usePhoto is true but no saved photo or photoImage was provided',
          ),
        });
      }
      return new Promise(() => undefined);
    },
  } as unknown as Replies;
  const minted: string[] = [];
  const readModel = {
    settle: async () => undefined,
    account: async () => undefined,
    expectNewJob: (jobId: string) => minted.push(jobId),
  } as unknown as GatewayReadModel;
  const asking = new GenerateUseCase(log, objects, config, systemClock, replies, readModel);

  async function run(change: Partial<typeof request>, status: number) {
    appended.length = 0;
    await expect(
      asking.execute({ principal: principal('pro'), request: { ...request, ...change } }),
    ).rejects.toMatchObject({ status });
    return appended;
  }

  it.each([
    { jobId: undefined, told: 'the id it minted' },
    { jobId: 'job_claimed', told: 'nothing' },
  ])('tells the read model a job is new only when it minted the id (told: $told)', async ({ jobId }) => {
    minted.length = 0;
    appended.length = 0;
    await expect(asking.execute({ principal: principal('pro'), request, jobId })).rejects.toMatchObject({
      status: 429,
    });
    const { job } = appended[0]!.events[0]!.payload as { job: JobSpec };
    expect(minted).toEqual(jobId ? [] : [job.jobId]);
    expect(job.jobId).toBe(jobId ?? minted[0]);
  });

  it('goes straight to billing with nothing saved involved, resolved as the asset service would', async () => {
    const [only, ...rest] = await run({}, 429);
    expect(rest).toEqual([]);
    expect(only!.topic).toBe(TOPICS.billing);
    const { job } = only!.events[0]!.payload as { job: JobSpec };
    expect(job).toMatchObject({ format: 'youtube', photoKey: null, logo: null, references: null });
  });

  it('places an inline photo and logo itself', async () => {
    const png = await sharp({
      create: { width: 4, height: 4, channels: 3, background: '#336699' },
    })
      .png()
      .toBuffer();
    const dataUrl = `data:image/png;base64,${png.toString('base64')}`;
    const [only, ...rest] = await run(
      { usePhoto: true, useLogo: true, photoImage: dataUrl, logoImage: dataUrl },
      429,
    );
    expect(rest).toEqual([]);
    const { job } = only!.events[0]!.payload as { job: JobSpec };
    expect(job.photoKey).toBe(`uploads/acc_1/${job.jobId}/photo`);
    expect(job.logo).toEqual({
      key: `uploads/acc_1/${job.jobId}/logo`,
      position: 'bottom-right',
      size: 0.15,
      dropShadow: false,
    });
  });

  it('asks the asset service for a saved photo and answers with its rejection', async () => {
    const [only, ...rest] = await run({ usePhoto: true }, 400);
    expect(rest).toEqual([]);
    expect(only!.topic).toBe(TOPICS.assets);
    expect(only!.events[0]!.type).toBe('asset.job-assets-requested');
  });
});
