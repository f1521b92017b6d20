import { describe, expect, it } from 'vitest';
import { ACCOUNT, assetService } from '../../test/harness.js';

describe('RemovePhotoUseCase', () => {
  it.each([
    ['a saved photo is removed', true, ['asset.photo-removed']],
    ['with no photo there is nothing to record', false, []],
  ])('%s', async (_name, saved, types) => {
    const s = assetService();
    await s.projection.start();
    if (saved) await s.savePhoto.execute({ commandId: 'evt_save', accountId: ACCOUNT, key: 'k' });
    const written = await s.removePhoto.execute({ commandId: 'evt_rm', accountId: ACCOUNT });
    expect(written.map((e) => e.type)).toEqual(types);
    expect(await s.projection.photo(ACCOUNT)).toBeUndefined();
  });

  it('a removal delivered again after a new save does not remove the new photo', async () => {
    const s = assetService();
    await s.projection.start();
    await s.savePhoto.execute({ commandId: 'evt_save1', accountId: ACCOUNT, key: 'k1' });
    await s.removePhoto.execute({ commandId: 'evt_rm', accountId: ACCOUNT });
    await s.savePhoto.execute({ commandId: 'evt_save2', accountId: ACCOUNT, key: 'k2' });
    expect(await s.removePhoto.execute({ commandId: 'evt_rm', accountId: ACCOUNT })).toEqual([]);
    expect(await s.projection.photo(ACCOUNT)).toEqual({ id: ACCOUNT, key: 'k2' });
  });
});
