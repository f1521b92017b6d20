import type { EventEnvelope, NormalizedGenerateRequest } from '@thumbforge/contracts';
import type { EventLog } from '@thumbforge/event-log';
import type { ObjectStore } from '@thumbforge/object-store';
import { loadConfig, systemClock } from '@thumbforge/platform';
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
const objects = { put: async () => undefined } as unknown as ObjectStore;
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
  format: 'youtube' as const,
  category: 'auto' as const,
  usePhoto: false,
  useLogo: false,
  photoImage: null,
  logoImage: null,
  customAssetsId: null,
  model: 'sd' as const,
  outputFormat: 'webp' as const,
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
