import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ERROR_CODES } from '@thumbforge/contracts';
import { CONFIG, constantTimeEqual, type Config } from '@thumbforge/platform';
import type { Request } from 'express';
import { ApiException } from '../http/api-exception.js';

/** Bearer ADMIN_TOKEN; with no token configured the admin API is off. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(@Inject(CONFIG) private readonly config: Config) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.config.adminToken) {
      throw new ApiException(
        403,
        ERROR_CODES.ADMIN_DISABLED,
        'Admin API is disabled: set ADMIN_TOKEN to enable it',
      );
    }
    const header = context.switchToHttp().getRequest<Request>().header('authorization') ?? '';
    const token = header.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (!token) throw new ApiException(401, ERROR_CODES.UNAUTHORIZED, 'Missing admin token');
    if (!constantTimeEqual(token, this.config.adminToken)) {
      throw new ApiException(401, ERROR_CODES.UNAUTHORIZED, 'Invalid admin token');
    }
    return true;
  }
}
