import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ERROR_CODES } from '@thumbforge/contracts';
import { CONFIG, PUBLIC_TEST_KEY, type Config } from '@thumbforge/platform';
import { ApiException } from '../http/api-exception.js';
import { GatewayReadModel } from '../read-model/gateway-read-model.js';
import type { AuthenticatedRequest } from './principal.js';

/** Reads the key from `x-api-key`, or `Authorization: Bearer` as earlier clients send it. */
export function presentedKey(req: AuthenticatedRequest): string | null {
  const header = req.header('x-api-key');
  if (header !== undefined) return header.trim() || null;
  const auth = req.header('authorization');
  const match = auth?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1]! : null;
}

/** DESIGN §4 step 1: 401 missing, 401 invalid, 403 API access not enabled. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly readModel: GatewayReadModel,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = presentedKey(req);
    if (!key) throw new ApiException(401, ERROR_CODES.MISSING_API_KEY, 'Missing API key');
    if (key === PUBLIC_TEST_KEY && this.config.publicTestKeyEnabled) {
      req.principal = { kind: 'public-test', apiKey: key, clientAddress: req.ip ?? 'unknown' };
      return true;
    }
    const account = await this.readModel.accountByKey(key);
    if (!account?.ledger) throw new ApiException(401, ERROR_CODES.INVALID_API_KEY, 'Invalid API key');
    if (!account.ledger.apiAccess)
      throw new ApiException(403, ERROR_CODES.API_ACCESS_DISABLED, 'API access not enabled');
    req.principal = {
      kind: 'account',
      accountId: account.id,
      apiKey: key,
      plan: account.ledger.plan,
      account,
    };
    return true;
  }
}
