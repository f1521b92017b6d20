import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { ERROR_CODES } from '@thumbforge/contracts';
import { LOGGER, type Logger } from '@thumbforge/platform';
import type { Response } from 'express';
import { ApiException } from './api-exception.js';

const CODE_BY_STATUS: Record<number, string> = {
  400: ERROR_CODES.INVALID_REQUEST,
  401: ERROR_CODES.UNAUTHORIZED,
  404: ERROR_CODES.NOT_FOUND,
  413: ERROR_CODES.PAYLOAD_TOO_LARGE,
  429: ERROR_CODES.RATE_LIMITED,
};

/** The readiness probe's failing checks (terminus puts them under `error`), named for the message. */
function downComponents(body: unknown): string[] {
  const failed =
    (body as { error?: Record<string, { components?: Record<string, { state: string }> }> }).error ?? {};
  return Object.entries(failed).flatMap(([check, detail]) => {
    const components = Object.entries(detail.components ?? {}).filter(([, c]) => c.state !== 'ready');
    return components.length > 0 ? components.map(([name]) => name) : [check];
  });
}

/** Maps anything thrown to the one error body shape; unknown errors are logged and become a plain 500. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    if (exception instanceof ApiException) {
      for (const [name, value] of Object.entries(exception.headers)) res.setHeader(name, value);
      res.status(exception.getStatus()).json(exception.getResponse());
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const body = exception.getResponse();
      const message =
        typeof body === 'object' && body !== null && 'message' in body
          ? String(Array.isArray(body.message) ? body.message[0] : body.message)
          : exception.message;
      if (status === 503) {
        res
          .status(503)
          .json({ error: `Not ready: ${downComponents(body).join(', ')}`, code: ERROR_CODES.NOT_READY });
        return;
      }
      res.status(status).json({
        error: status === 404 ? 'Not found' : message,
        code:
          CODE_BY_STATUS[status] ?? (status < 500 ? ERROR_CODES.INVALID_REQUEST : ERROR_CODES.INTERNAL_ERROR),
      });
      return;
    }
    this.logger.error({ err: exception }, 'unhandled error');
    res.status(500).json({ error: 'Internal server error', code: ERROR_CODES.INTERNAL_ERROR });
  }
}
