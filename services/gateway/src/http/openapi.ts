import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ERROR_CODES } from '@thumbforge/contracts';
import type { NextFunction, Request, Response } from 'express';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Thumbforge')
    .setDescription(
      'Thumbnail generation from a title: sync results or async jobs delivered by signed webhook.',
    )
    .setVersion('1')
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .addServer('/', 'This service')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, 'api-key')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' }, 'admin-token')
    .build();
  return withCommonResponses(SwaggerModule.createDocument(app, config));
}

const REQUEST_ID = {
  description: 'The request id: the one sent in X-Request-Id if well-formed, else a new one',
  schema: { type: 'string' },
};
const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDto' } } },
});

/**
 * What every route answers besides its own outcomes, added once here rather than on each handler:
 * the request id header, 503 while draining, and for routes with a body the parser's 400 and 413.
 */
type OperationObject = NonNullable<OpenAPIObject['paths'][string]['post']>;
type ResponseObject = { headers?: Record<string, unknown> };

function withCommonResponses(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as OperationObject[]) {
      if (typeof operation !== 'object' || !operation.responses) continue;
      operation.responses['503'] ??= error('SHUTTING_DOWN: the instance is draining; retry another one.');
      if (operation.requestBody) {
        operation.responses['400'] ??= error('Malformed or invalid body.');
        operation.responses['413'] ??= error('Body larger than 6 MB.');
      }
      for (const response of Object.values(operation.responses) as ResponseObject[]) {
        response.headers = { 'X-Request-Id': REQUEST_ID, ...response.headers };
      }
    }
  }
  return document;
}

/** `/openapi.json` and the docs UI at `/docs`. */
export function mountOpenApi(app: INestApplication): OpenAPIObject {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  return document;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `/admin/v1/accounts/{id}` → a pattern matching one path segment per parameter. */
function pathPattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

/**
 * A documented path asked with a method it does not have answers 405 with `Allow`, not 404: the
 * resource exists. Paths the document does not know fall through to the router's 404.
 */
export function methodNotAllowed(document: OpenAPIObject) {
  const routes = Object.entries(document.paths).map(([template, item]) => ({
    pattern: pathPattern(template),
    methods: METHODS.filter((m) => m in item).map((m) => m.toUpperCase()),
  }));
  return (req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    const route = routes.find((r) => r.pattern.test(path));
    const allowed = route && [...route.methods, ...(route.methods.includes('GET') ? ['HEAD'] : [])];
    if (!allowed || allowed.includes(req.method)) return next();
    res.setHeader('Allow', allowed.join(', '));
    res.status(405).json({
      error: `${req.method} is not allowed here; use ${allowed.join(', ')}`,
      code: ERROR_CODES.METHOD_NOT_ALLOWED,
    });
  };
}
