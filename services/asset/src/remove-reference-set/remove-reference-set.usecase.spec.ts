import { describe, expect, it } from 'vitest';
import { ACCOUNT, assetService } from '../../test/harness.js';

describe('RemoveReferenceSetUseCase', () => {
  it.each([
    ['the account’s set is removed', ACCOUNT, 'ref_1', ['asset.reference-set-removed']],
    ['an unknown set is left alone', ACCOUNT, 'ref_unknown', []],
    ['another account cannot remove it', 'acc_OTHER', 'ref_1', []],
  ])('%s', async (_name, accountId, setId, types) => {
    const s = assetService();
    await s.projection.start();
    await s.createReferenceSet.execute({
      commandId: 'evt_cmd',
      accountId: ACCOUNT,
      setId: 'ref_1',
      format: 'x',
      imageKeys: ['k'],
    });
    const written = await s.removeReferenceSet.execute({ commandId: 'evt_rm', accountId, setId });
    expect(written.map((e) => e.type)).toEqual(types);
    expect((await s.projection.referenceSet(ACCOUNT, 'ref_1')) === undefined).toBe(types.length > 0);
  });

  it('a removal delivered again records nothing', async () => {
    const s = assetService();
    await s.projection.start();
    await s.createReferenceSet.execute({
      commandId: 'evt_cmd',
      accountId: ACCOUNT,
      setId: 'ref_1',
      format: 'x',
      imageKeys: ['k'],
    });
    await s.removeReferenceSet.execute({ commandId: 'evt_rm', accountId: ACCOUNT, setId: 'ref_1' });
    expect(
      await s.removeReferenceSet.execute({ commandId: 'evt_rm', accountId: ACCOUNT, setId: 'ref_1' }),
    ).toEqual([]);
  });
});
