import { afterEach, describe, expect, it } from 'vitest';
import { makeEvent, TOPICS } from '@thumbforge/contracts';
import {
  ACCOUNT,
  assetService,
  facts,
  jobAssetsRequest,
  jobAssetsRequested,
  until,
  type AssetService,
} from '../test/harness.js';
import { ASSET_GROUP } from './asset.consumer.js';

const running: AssetService[] = [];

async function started(log?: AssetService['log']): Promise<AssetService> {
  const s = assetService(log);
  running.push(s);
  await s.consumer.onApplicationBootstrap();
  return s;
}

afterEach(async () => {
  for (const s of running.splice(0)) await s.consumer.beforeApplicationShutdown();
});

const command = <K extends Parameters<typeof makeEvent>[0]>(
  type: K,
  payload: Parameters<typeof makeEvent<K>>[2],
) => makeEvent(type, ACCOUNT, payload, { correlationId: ACCOUNT });

async function answered(s: AssetService, jobId: string) {
  await until(() => facts(s).some((e) => e.correlationId === jobId));
  return facts(s).find((e) => e.correlationId === jobId)!;
}

describe('AssetConsumer', () => {
  it('a job requested right after saves sees them, in log order', async () => {
    const s = await started();
    const request = jobAssetsRequest({ usePhoto: true, useLogo: true, customAssetsId: 'ref_1' });
    await s.log.append(TOPICS.assets, [
      command('asset.photo-save-requested', { accountId: ACCOUNT, key: 'assets/p' }),
      command('asset.logo-save-requested', {
        accountId: ACCOUNT,
        key: 'assets/l',
        position: 'top-left',
        size: 0.2,
        dropShadow: true,
      }),
      command('asset.reference-set-create-requested', {
        accountId: ACCOUNT,
        setId: 'ref_1',
        format: 'x',
        imageKeys: ['assets/r1'],
      }),
      jobAssetsRequested(request),
    ]);
    const answer = await answered(s, request.jobId);
    expect(answer).toMatchObject({
      type: 'asset.job-assets-resolved',
      payload: {
        format: 'x',
        photoKey: 'assets/p',
        logo: { key: 'assets/l', position: 'top-left', size: 0.2, dropShadow: true },
        references: { setId: 'ref_1', imageKeys: ['assets/r1'] },
      },
    });
  });

  it.each([
    ['photo', 'asset.photo-remove-requested', { usePhoto: true }, 'PHOTO_REQUIRED'],
    ['logo', 'asset.logo-remove-requested', { useLogo: true }, 'LOGO_REQUIRED'],
  ] as const)('a job requested after the %s was removed is rejected', async (_name, removal, flags, code) => {
    const s = await started();
    const request = jobAssetsRequest(flags);
    await s.log.append(TOPICS.assets, [
      command('asset.photo-save-requested', { accountId: ACCOUNT, key: 'assets/p' }),
      command('asset.logo-save-requested', {
        accountId: ACCOUNT,
        key: 'assets/l',
        position: 'top-left',
        size: 0.2,
        dropShadow: true,
      }),
      command(removal, { accountId: ACCOUNT }),
      jobAssetsRequested(request),
    ]);
    expect((await answered(s, request.jobId)).payload).toMatchObject({ reason: { code } });
  });

  it('a removed reference set is not found', async () => {
    const s = await started();
    const request = jobAssetsRequest({ customAssetsId: 'ref_1' });
    await s.log.append(TOPICS.assets, [
      command('asset.reference-set-create-requested', {
        accountId: ACCOUNT,
        setId: 'ref_1',
        format: 'x',
        imageKeys: ['k'],
      }),
      command('asset.reference-set-remove-requested', { accountId: ACCOUNT, setId: 'ref_1' }),
      jobAssetsRequested(request),
    ]);
    expect((await answered(s, request.jobId)).payload).toMatchObject({
      reason: { status: 404, code: 'REFERENCE_SET_NOT_FOUND' },
    });
  });

  it('redelivery of everything after a crash before commit writes no new facts and keeps the state', async () => {
    const s = await started();
    const request = jobAssetsRequest({ usePhoto: true });
    await s.log.append(TOPICS.assets, [
      command('asset.photo-save-requested', { accountId: ACCOUNT, key: 'assets/p1' }),
      command('asset.photo-remove-requested', { accountId: ACCOUNT }),
      command('asset.photo-save-requested', { accountId: ACCOUNT, key: 'assets/p2' }),
      command('asset.reference-set-create-requested', {
        accountId: ACCOUNT,
        setId: 'ref_1',
        format: 'x',
        imageKeys: ['k'],
      }),
      command('asset.reference-set-remove-requested', { accountId: ACCOUNT, setId: 'ref_1' }),
      jobAssetsRequested(request),
    ]);
    await answered(s, request.jobId);
    await s.consumer.beforeApplicationShutdown();
    const before = facts(s);

    s.log.forgetCommitted(ASSET_GROUP);
    const fresh = await started(s.log);
    const marker = jobAssetsRequest({ usePhoto: true, customAssetsId: 'ref_1' });
    await fresh.log.append(TOPICS.assets, [jobAssetsRequested(marker)]);
    const answer = await answered(fresh, marker.jobId);

    expect(facts(fresh)).toEqual([...before, answer]);
    expect(answer.payload).toMatchObject({ reason: { code: 'REFERENCE_SET_NOT_FOUND' } });
    expect(await fresh.projection.photo(ACCOUNT)).toEqual({ id: ACCOUNT, key: 'assets/p2' });
  });

  it('ignores facts and unknown command versions', async () => {
    const s = await started();
    await s.log.append(TOPICS.assets, [
      { ...command('asset.photo-save-requested', { accountId: ACCOUNT, key: 'assets/v2' }), version: 2 },
      makeEvent('asset.photo-saved', ACCOUNT, { accountId: ACCOUNT, key: 'assets/direct' }),
    ]);
    const request = jobAssetsRequest({ usePhoto: true });
    await s.log.append(TOPICS.assets, [jobAssetsRequested(request)]);
    // the fact written directly is projected; the v2 command was not acted on
    expect((await answered(s, request.jobId)).payload).toMatchObject({ photoKey: 'assets/direct' });
    expect(facts(s).map((e) => e.type)).toEqual(['asset.photo-saved', 'asset.job-assets-resolved']);
  });

  it('reports readiness of the projection and the consumer', async () => {
    const s = await started();
    await until(() => s.readiness.snapshot().ready);
    expect(Object.keys(s.readiness.snapshot().components).sort()).toEqual([
      'asset.consumer',
      'asset.projection',
    ]);
  });
  it('a photo save decided under a stale owner epoch is dropped; under the current one it counts', async () => {
    const s = await started();
    await until(() => s.log.events(TOPICS.assets).length === 1);
    expect(s.log.events(TOPICS.assets)[0]).toMatchObject({ type: 'log.owner-fenced', offset: 0 });
    // Another replica takes the partition over before the stale decision lands.
    const [takeover] = await s.log.append(
      TOPICS.assets,
      [makeEvent('log.owner-fenced', `${TOPICS.assets}:0`, { writer: ASSET_GROUP, partition: 0 })],
      { partition: 0 },
    );
    await s.savePhoto.execute({ commandId: 'evt_stale', accountId: ACCOUNT, key: 'assets/stale', fence: 0 });
    expect(await s.projection.photo(ACCOUNT)).toBeUndefined();
    expect(await s.projection.handled('evt_stale')).toBe(false);

    await s.savePhoto.execute({
      commandId: 'evt_stale',
      accountId: ACCOUNT,
      key: 'assets/stale',
      fence: takeover!.offset,
    });
    expect(await s.projection.photo(ACCOUNT)).toMatchObject({ key: 'assets/stale' });
    expect(facts(s).map((e) => e.fence)).toEqual([0, takeover!.offset]);
  });
});
