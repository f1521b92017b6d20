import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

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
