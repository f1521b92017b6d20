import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ERROR_CODES } from '@thumbforge/contracts';
import { CLOCK, CONFIG, hashApiKey, type Clock, type Config } from '@thumbforge/platform';
import type { AuthenticatedRequest } from '../auth/principal.js';
import { ApiException } from '../http/api-exception.js';
import { RATE_LIMITER, type RateLimiter } from './rate-limiter.js';

/** The public test key needs no account, so it is limited per client address instead of per key. */
export const PUBLIC_TEST_RATE_PER_SECOND = 2;

/** DESIGN §4 step 2: per key, per second, by plan. */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = req.principal;
    const [key, perSecond] =
      principal.kind === 'account'
        ? [`key:${hashApiKey(principal.apiKey)}`, this.config.rateLimits[principal.plan]]
        : [`test:${principal.clientAddress}`, PUBLIC_TEST_RATE_PER_SECOND];
    const decision = await this.limiter.consume(key, perSecond, this.clock.now().getTime());
    if (!decision.allowed) {
      throw new ApiException(429, ERROR_CODES.RATE_LIMITED, 'Rate limit exceeded', {
        'Retry-After': String(decision.retryAfterSeconds),
      });
    }
    return true;
  }
}
