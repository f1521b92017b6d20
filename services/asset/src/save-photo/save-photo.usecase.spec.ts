import { describe, expect, it } from 'vitest';
import { ACCOUNT, assetService, facts } from '../../test/harness.js';

describe('SavePhotoUseCase', () => {
  it.each([
    ['a first photo', [], 'assets/a/photo/upl_1'],
    ['a replacement', ['assets/a/photo/upl_0'], 'assets/a/photo/upl_1'],
  ])('records %s', async (_name, earlier, key) => {
    const s = assetService();
    await s.projection.start();
    for (const [i, k] of earlier.entries())
      await s.savePhoto.execute({ commandId: `evt_old${i}`, accountId: ACCOUNT, key: k });
    const written = await s.savePhoto.execute({ commandId: 'evt_cmd', accountId: ACCOUNT, key });
    expect(written.map((e) => [e.type, e.id, e.causationId, e.correlationId, e.payload])).toEqual([
      ['asset.photo-saved', 'evt_cmd:photo-saved', 'evt_cmd', ACCOUNT, { accountId: ACCOUNT, key }],
    ]);
    expect(await s.projection.photo(ACCOUNT)).toEqual({ id: ACCOUNT, key });
  });

  it('the same command again records nothing, even after a later removal', async () => {
    const s = assetService();
    await s.projection.start();
    await s.savePhoto.execute({ commandId: 'evt_cmd', accountId: ACCOUNT, key: 'k' });
    await s.removePhoto.execute({ commandId: 'evt_rm', accountId: ACCOUNT });
    expect(await s.savePhoto.execute({ commandId: 'evt_cmd', accountId: ACCOUNT, key: 'k' })).toEqual([]);
    expect(await s.projection.photo(ACCOUNT)).toBeUndefined();
    expect(facts(s)).toHaveLength(2);
  });
});
