import { describe, expect, it } from 'vitest';
import type { LogoPlacement } from '@thumbforge/contracts';
import { ACCOUNT, assetService } from '../../test/harness.js';

describe('SaveLogoUseCase', () => {
  it.each<LogoPlacement>([
    { key: 'k1', position: 'bottom-right', size: 0.15, dropShadow: false },
    { key: 'k2', position: 'top-left', size: 0.5, dropShadow: true },
    { key: 'k3', position: 'bottom-left', size: 0.05, dropShadow: false },
  ])('records the logo with its placement %#', async (logo) => {
    const s = assetService();
    await s.projection.start();
    const written = await s.saveLogo.execute({ commandId: 'evt_cmd', accountId: ACCOUNT, ...logo });
    expect(written.map((e) => [e.type, e.id, e.payload])).toEqual([
      ['asset.logo-saved', 'evt_cmd:logo-saved', { accountId: ACCOUNT, ...logo }],
    ]);
    expect(await s.projection.logo(ACCOUNT)).toEqual({ id: ACCOUNT, ...logo });
  });

  it('the same command again records nothing', async () => {
    const s = assetService();
    await s.projection.start();
    const logo: LogoPlacement = { key: 'k', position: 'top-right', size: 0.2, dropShadow: true };
    await s.saveLogo.execute({ commandId: 'evt_cmd', accountId: ACCOUNT, ...logo });
    expect(await s.saveLogo.execute({ commandId: 'evt_cmd', accountId: ACCOUNT, ...logo })).toEqual([]);
  });
});
