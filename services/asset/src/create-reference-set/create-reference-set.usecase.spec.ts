import { describe, expect, it } from 'vitest';
import { ACCOUNT, assetService } from '../../test/harness.js';

describe('CreateReferenceSetUseCase', () => {
  it.each([
    ['one image', 'youtube', ['k1']],
    ['six images', 'instagram', ['k1', 'k2', 'k3', 'k4', 'k5', 'k6']],
  ] as const)('records a set of %s with its format', async (_name, format, imageKeys) => {
    const s = assetService();
    await s.projection.start();
    const written = await s.createReferenceSet.execute({
      commandId: 'evt_cmd',
      accountId: ACCOUNT,
      setId: 'ref_1',
      format,
      imageKeys: [...imageKeys],
    });
    expect(written.map((e) => [e.type, e.id, e.payload])).toEqual([
      [
        'asset.reference-set-created',
        'evt_cmd:reference-set-created',
        { accountId: ACCOUNT, setId: 'ref_1', format, imageKeys },
      ],
    ]);
    expect(await s.projection.referenceSet(ACCOUNT, 'ref_1')).toEqual({
      id: 'ref_1',
      accountId: ACCOUNT,
      format,
      imageKeys,
      removed: false,
    });
  });

  it.each([
    ['the same command again', 'evt_cmd', false],
    ['a create for a removed set id', 'evt_other', true],
  ])('%s records nothing', async (_name, commandId, removeFirst) => {
    const s = assetService();
    await s.projection.start();
    await s.createReferenceSet.execute({
      commandId: 'evt_cmd',
      accountId: ACCOUNT,
      setId: 'ref_1',
      format: 'x',
      imageKeys: ['k'],
    });
    if (removeFirst) {
      await s.removeReferenceSet.execute({ commandId: 'evt_rm', accountId: ACCOUNT, setId: 'ref_1' });
    }
    expect(
      await s.createReferenceSet.execute({
        commandId,
        accountId: ACCOUNT,
        setId: 'ref_1',
        format: 'x',
        imageKeys: ['k'],
      }),
    ).toEqual([]);
    expect((await s.projection.referenceSet(ACCOUNT, 'ref_1')) === undefined).toBe(removeFirst);
  });
});
