import { describe, expect, it } from 'vitest';
import { ACCOUNT, assetService } from '../../test/harness.js';

describe('RemoveLogoUseCase', () => {
  it.each([
    ['a saved logo is removed', true, ['asset.logo-removed']],
    ['with no logo there is nothing to record', false, []],
  ])('%s', async (_name, saved, types) => {
    const s = assetService();
    await s.projection.start();
    if (saved) {
      await s.saveLogo.execute({
        commandId: 'evt_save',
        accountId: ACCOUNT,
        key: 'k',
        position: 'top-left',
        size: 0.1,
        dropShadow: false,
      });
    }
    const written = await s.removeLogo.execute({ commandId: 'evt_rm', accountId: ACCOUNT });
    expect(written.map((e) => [e.type, e.id])).toEqual(types.map((t) => [t, 'evt_rm:logo-removed']));
    expect(await s.projection.logo(ACCOUNT)).toBeUndefined();
  });
});
