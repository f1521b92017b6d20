import type { INestApplication } from '@nestjs/common';
import { ApiExcludeController, DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ERROR_CODES } from '@thumbforge/contracts';
import { HealthController } from '@thumbforge/platform';
import type { NextFunction, Request, Response } from 'express';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  // The probes are for the orchestrator, not the API. Marked here because only the gateway loads
  // @nestjs/swagger; the services that share the controller do not.
  ApiExcludeController()(HealthController);
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
  const document = withCommonResponses(SwaggerModule.createDocument(app, config));
  return asOpenApi31({ ...document, openapi: '3.1.0', webhooks: WEBHOOKS } as OpenAPIObject);
}

/**
 * Nest writes OpenAPI 3.0 schemas; the document is 3.1 (for `webhooks`), where `nullable` no longer
 * exists: a nullable schema becomes `type: [T, 'null']` (or `anyOf` with `null` around a reference),
 * and `null` joins its enum. An operation that names no security scheme is public, and says so.
 */
function asOpenApi31(document: OpenAPIObject): OpenAPIObject {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const { nullable, ...rest } = node as Record<string, unknown>;
    const schema = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, visit(v)]));
    if (nullable !== true) return schema;
    if (typeof schema.type === 'string') {
      const enumValues = Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {};
      return { ...schema, type: [schema.type, 'null'], ...enumValues };
    }
    return { anyOf: [schema, { type: 'null' }] };
  };
  const converted = visit(document) as OpenAPIObject;
  for (const item of Object.values(converted.paths)) {
    for (const operation of Object.values(item) as OperationObject[]) {
      if (typeof operation === 'object' && operation.responses && !operation.security)
        operation.security = [];
    }
  }
  return converted;
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

const header = (name: string, description: string, required = true) => ({
  name,
  in: 'header',
  required,
  description,
  schema: { type: 'string' },
});

const WEBHOOK_HEADERS = [
  header(
    'X-Service-Signature',
    'Hex HMAC-SHA256 of the body bytes, keyed with the API key (spec §6.1). Verify over JSON.stringify(JSON.parse(body)).',
  ),
  header(
    'webhook-id',
    'Standard Webhooks: the delivery id, the same on every attempt. Sent once the account has a webhook secret.',
    false,
  ),
  header('webhook-timestamp', 'Standard Webhooks: Unix seconds of this attempt.', false),
  header(
    'webhook-signature',
    'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, one per active whsec_ secret.',
    false,
  ),
];

const webhook = (operationId: string, summary: string, schema: object) => ({
  post: {
    operationId,
    summary,
    // The receiver authenticates the sender by the signature headers, not by a scheme of ours.
    security: [],
    parameters: WEBHOOK_HEADERS,
    requestBody: { required: true, content: { 'application/json': { schema } } },
    responses: {
      '200': {
        description: 'Any 2xx within WEBHOOK_TIMEOUT_MS acknowledges; otherwise the delivery is retried.',
      },
    },
  },
});

/** Spec §6.2: the events POSTed to a request's `webhookUrl` (OpenAPI 3.1 `webhooks`). */
const WEBHOOKS = {
  'generation.completed': webhook('generationCompleted', 'The job succeeded', {
    type: 'object',
    required: ['event', 'jobId', 'data', 'timestamp'],
    properties: {
      event: { type: 'string', const: 'generation.completed' },
      jobId: { type: 'string' },
      data: { $ref: '#/components/schemas/GenerationResultDto' },
      timestamp: { type: 'string', format: 'date-time' },
    },
  }),
  'generation.failed': webhook('generationFailed', 'The job failed', {
    type: 'object',
    required: ['event', 'jobId', 'error', 'timestamp'],
    properties: {
      event: { type: 'string', const: 'generation.failed' },
      jobId: { type: 'string' },
      error: { type: 'string' },
      timestamp: { type: 'string', format: 'date-time' },
    },
  }),
};

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
