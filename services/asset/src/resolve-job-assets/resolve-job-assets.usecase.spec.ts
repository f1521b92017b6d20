import { describe, expect, it } from 'vitest';
import type { Plan } from '@thumbforge/contracts';
import {
  ACCOUNT,
  assetService,
  facts,
  jobAssetsRequest,
  NOW,
  type AssetService,
} from '../../test/harness.js';

const LOGO = { key: 'assets/acc/logo/upl_1', position: 'top-right' as const, size: 0.2, dropShadow: true };

async function withSavedAssets(): Promise<AssetService> {
  const s = assetService();
  await s.projection.start();
  await s.savePhoto.execute({ commandId: 'evt_p', accountId: ACCOUNT, key: 'assets/acc/photo/upl_1' });
  await s.saveLogo.execute({ commandId: 'evt_l', accountId: ACCOUNT, ...LOGO });
  await s.createReferenceSet.execute({
    commandId: 'evt_r',
    accountId: ACCOUNT,
    setId: 'ref_1',
    format: 'linkedin',
    imageKeys: ['k1', 'k2', 'k3'],
  });
  await s.createReferenceSet.execute({
    commandId: 'evt_o',
    accountId: 'acc_OTHER',
    setId: 'ref_other',
    format: 'x',
    imageKeys: ['o1'],
  });
  return s;
}

describe('ResolveJobAssetsUseCase', () => {
  it('resolves saved assets from the projection and answers the job', async () => {
    const s = await withSavedAssets();
    const request = jobAssetsRequest({ usePhoto: true, useLogo: true, customAssetsId: 'ref_1' });
    const written = await s.resolveJobAssets.execute({ commandId: 'evt_job', ...request });

    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      type: 'asset.job-assets-resolved',
      id: 'evt_job:resolved',
      aggregateId: ACCOUNT,
      correlationId: request.jobId,
      causationId: 'evt_job',
      occurredAt: NOW,
      payload: {
        jobId: request.jobId,
        accountId: ACCOUNT,
        format: 'linkedin',
        photoKey: 'assets/acc/photo/upl_1',
        logo: LOGO,
        references: { setId: 'ref_1', imageKeys: ['k1', 'k2', 'k3'] },
      },
    });
  });

  it.each<
    [string, (s: AssetService) => Promise<unknown>, Partial<Parameters<typeof jobAssetsRequest>[0]>, string]
  >([
    [
      'a removed reference set',
      (s) => s.removeReferenceSet.execute({ commandId: 'evt_rm', accountId: ACCOUNT, setId: 'ref_1' }),
      { customAssetsId: 'ref_1' },
      'REFERENCE_SET_NOT_FOUND',
    ],
    [
      'another account’s reference set',
      async () => undefined,
      { customAssetsId: 'ref_other' },
      'REFERENCE_SET_NOT_FOUND',
    ],
    [
      'a removed photo',
      (s) => s.removePhoto.execute({ commandId: 'evt_rm', accountId: ACCOUNT }),
      { usePhoto: true },
      'PHOTO_REQUIRED',
    ],
    [
      'a removed logo',
      (s) => s.removeLogo.execute({ commandId: 'evt_rm', accountId: ACCOUNT }),
      { useLogo: true },
      'LOGO_REQUIRED',
    ],
    [
      'saved assets after a downgrade',
      async () => undefined,
      { plan: 'creator' as Plan, usePhoto: true },
      'FEATURE_NOT_IN_PLAN',
    ],
  ])('rejects %s', async (_name, before, overrides, code) => {
    const s = await withSavedAssets();
    await before(s);
    const request = jobAssetsRequest(overrides);
    const [fact] = await s.resolveJobAssets.execute({ commandId: 'evt_job', ...request });
    expect(fact).toMatchObject({
      type: 'asset.job-assets-rejected',
      id: 'evt_job:rejected',
      correlationId: request.jobId,
      causationId: 'evt_job',
      payload: { jobId: request.jobId, accountId: ACCOUNT, reason: { code } },
    });
  });

  it('another account’s saved photo is never used', async () => {
    const s = await withSavedAssets();
    const [fact] = await s.resolveJobAssets.execute({
      commandId: 'evt_job',
      ...jobAssetsRequest({ accountId: 'acc_OTHER', usePhoto: true }),
    });
    expect(fact!.type).toBe('asset.job-assets-rejected');
  });

  it('a command delivered again is answered only once', async () => {
    const s = await withSavedAssets();
    const request = jobAssetsRequest({ usePhoto: true });
    await s.resolveJobAssets.execute({ commandId: 'evt_job', ...request });
    expect(await s.resolveJobAssets.execute({ commandId: 'evt_job', ...request })).toEqual([]);
    expect(facts(s).filter((e) => e.correlationId === request.jobId)).toHaveLength(1);
  });
});
