import type { ExecutionContext } from '@nestjs/common';
import { loadConfig } from '@thumbforge/platform';
import { describe, expect, it } from 'vitest';
import type { GatewayReadModel } from '../read-model/gateway-read-model.js';
import { ApiKeyGuard } from './api-key.guard.js';
import type { AuthenticatedRequest } from './principal.js';

const ledger = (apiAccess: boolean) => ({ plan: 'pro', apiAccess }) as never;
const accounts: Record<string, unknown> = {
  tf_live_good: { id: 'acc_1', currentKeyHash: 'h', ledger: ledger(true) },
  tf_live_noapi: { id: 'acc_2', currentKeyHash: 'h', ledger: ledger(false) },
};
const readModel = { accountByKey: async (key: string) => accounts[key] } as unknown as GatewayReadModel;
const config = loadConfig({ DATA_DIR: '/tmp/tf-guard-test', KEY_ENCRYPTION_SECRET: 'a'.repeat(64) });

function context(headers: Record<string, string>): { ctx: ExecutionContext; req: AuthenticatedRequest } {
  const req = {
    header: (name: string) => headers[name.toLowerCase()],
    ip: '127.0.0.1',
  } as unknown as AuthenticatedRequest;
  return { ctx: { switchToHttp: () => ({ getRequest: () => req }) } as unknown as ExecutionContext, req };
}

describe('ApiKeyGuard', () => {
  const guard = new ApiKeyGuard(readModel, config);

  it.each([
    [{}, 401, 'Missing API key'],
    [{ 'x-api-key': '' }, 401, 'Missing API key'],
    [{ 'x-api-key': 'tf_live_nope' }, 401, 'Invalid API key'],
    [{ authorization: 'Basic abc' }, 401, 'Missing API key'],
    [{ 'x-api-key': 'tf_live_noapi' }, 403, 'API access not enabled'],
  ])('%j → %i %s', async (headers, status, message) => {
    const { ctx } = context(headers);
    await expect(guard.canActivate(ctx)).rejects.toMatchObject({ status, response: { error: message } });
  });

  it.each([[{ 'x-api-key': 'tf_live_good' }], [{ authorization: 'Bearer tf_live_good' }]])(
    '%j authenticates the account',
    async (headers) => {
      const { ctx, req } = context(headers);
      expect(await guard.canActivate(ctx)).toBe(true);
      expect(req.principal).toMatchObject({ kind: 'account', accountId: 'acc_1', plan: 'pro' });
    },
  );

  it('x-api-key wins over Authorization', async () => {
    const { ctx } = context({ 'x-api-key': 'tf_live_nope', authorization: 'Bearer tf_live_good' });
    await expect(guard.canActivate(ctx)).rejects.toMatchObject({ status: 401 });
  });

  it('recognises the public test key without an account', async () => {
    const { ctx, req } = context({ 'x-api-key': 'tf_test_public' });
    expect(await guard.canActivate(ctx)).toBe(true);
    expect(req.principal).toEqual({
      kind: 'public-test',
      apiKey: 'tf_test_public',
      clientAddress: '127.0.0.1',
    });
  });
});
