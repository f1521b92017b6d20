import type { OpenAPIObject } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { methodNotAllowed } from './openapi.js';

const document = {
  paths: {
    '/v1/generate': { post: {} },
    '/admin/v1/accounts/{id}': { get: {}, patch: {} },
  },
} as unknown as OpenAPIObject;

function call(method: string, path: string) {
  const answer: { status?: number; allow?: string; body?: unknown; next: boolean } = { next: false };
  const res = {
    setHeader: (_name: string, value: string) => (answer.allow = value),
    status: (status: number) => ({ json: (body: unknown) => Object.assign(answer, { status, body }) }),
  } as unknown as Response;
  methodNotAllowed(document)({ method, path } as Request, res, (() => (answer.next = true)) as NextFunction);
  return answer;
}

describe('methodNotAllowed', () => {
  it.each([
    ['POST', '/v1/generate', true, undefined],
    ['GET', '/v1/generate', false, 'POST'],
    ['TRACE', '/admin/v1/accounts/acc_1', false, 'GET, PATCH, HEAD'],
    ['HEAD', '/admin/v1/accounts/acc_1', true, undefined],
    ['PATCH', '/admin/v1/accounts/acc_1/', true, undefined],
    ['DELETE', '/admin/v1/accounts/acc_1/photo', true, undefined],
    ['GET', '/nowhere', true, undefined],
  ])('%s %s → passed on: %s, Allow: %s', (method, path, passed, allow) => {
    const answer = call(method, path);
    expect(answer.next).toBe(passed);
    expect(answer.allow).toBe(allow);
    if (!passed) {
      expect(answer.status).toBe(405);
      expect(answer.body).toEqual({
        error: `${method} is not allowed here; use ${allow}`,
        code: 'METHOD_NOT_ALLOWED',
      });
    }
  });
});
