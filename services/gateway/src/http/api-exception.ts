import { HttpException } from '@nestjs/common';
import type { ErrorCode, Rejection } from '@thumbforge/contracts';

/** Every error leaves the API as `{ error, code }` (DESIGN §4); extra headers ride along. */
export class ApiException extends HttpException {
  constructor(
    status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super({ error: message, code }, status);
  }

  static from(rejection: Rejection, headers: Record<string, string> = {}): ApiException {
    return new ApiException(rejection.status, rejection.code, rejection.error, headers);
  }
}
