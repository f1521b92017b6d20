import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Thumbforge')
    .setDescription(
      'Thumbnail generation from a title: sync results or async jobs delivered by signed webhook.',
    )
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, 'api-key')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' }, 'admin-token')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  return { ...document, openapi: '3.1.0', webhooks: WEBHOOKS } as OpenAPIObject;
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

const webhook = (summary: string, schema: object) => ({
  post: {
    summary,
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
  'generation.completed': webhook('The job succeeded', {
    type: 'object',
    required: ['event', 'jobId', 'data', 'timestamp'],
    properties: {
      event: { type: 'string', const: 'generation.completed' },
      jobId: { type: 'string' },
      data: { $ref: '#/components/schemas/GenerationResultDto' },
      timestamp: { type: 'string', format: 'date-time' },
    },
  }),
  'generation.failed': webhook('The job failed', {
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
