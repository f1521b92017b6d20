import { randomUUID } from 'node:crypto';
import { ERROR_CODES, LIMITS } from '@thumbforge/contracts';
import type { Logger } from '@thumbforge/platform';
import express, { type NextFunction, type Request, type Response } from 'express';
import { pinoHttp } from 'pino-http';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** No request of the API nests deeper than 3; validation walks bodies recursively, so bound it early. */
export const MAX_JSON_DEPTH = 32;

/** Whether `value` nests arrays or objects deeper than `max`, walked without recursion. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * What runs before Nest's router: request ids, access logs, and the JSON body parser with its
 * failures turned into the API's error body (413 over the cap, 400 for malformed JSON).
 */
export function requestPipeline(logger: Logger) {
  const requestId = (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.header('x-request-id');
    const id = incoming && REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID()}`;
    (req as Request & { id: string }).id = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
  const accessLog = pinoHttp({
    logger,
    genReqId: (req) => (req as unknown as { id: string }).id,
    customLogLevel: (_req, res, err) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/health') },
  });
  const json = express.json({
    limit: LIMITS.requestBodyMaxBytes,
    strict: true,
    type: ['application/json', 'application/*+json'],
  });
  const bodyErrors = (
    err: { type?: string; status?: number } | undefined,
    _req: Request,
    res: Response,
    next: NextFunction,
  ) => {
    if (!err) return next();
    if (err.type === 'entity.too.large') {
      res
        .status(413)
        .json({ error: 'Request body exceeds the 6 MB limit', code: ERROR_CODES.PAYLOAD_TOO_LARGE });
    } else if (err.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'Malformed JSON body', code: ERROR_CODES.INVALID_JSON });
    } else if (err.status && err.status >= 400 && err.status < 500) {
      res.status(err.status).json({ error: 'Unreadable request body', code: ERROR_CODES.INVALID_REQUEST });
    } else {
      next(err);
    }
  };
  const depthGuard = (req: Request, res: Response, next: NextFunction) => {
    if (!nestsDeeperThan(req.body, MAX_JSON_DEPTH)) return next();
    res.status(400).json({
      error: `Request body nests deeper than ${MAX_JSON_DEPTH} levels`,
      code: ERROR_CODES.INVALID_REQUEST,
    });
  };
  return [requestId, accessLog, json, bodyErrors, depthGuard] as const;
}
