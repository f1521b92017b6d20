import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES as SERVER_ERROR_CODES } from '@thumbforge/contracts';
import { describe, expect, it } from 'vitest';
import {
  API_PATHS,
  ERROR_CODES,
  FORMATS,
  GENERATE_REQUEST_FIELDS,
  GENERATION_RESULT_FIELDS,
  WEBHOOK_EVENTS,
} from '../src/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const document: Json = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../../docs/openapi.json'), 'utf8'),
);

/** Follows `$ref`s to the schema object. */
function resolve(schema: Json): Json {
  if (schema?.$ref) return resolve(document.components.schemas[schema.$ref.split('/').pop()]);
  return schema;
}

function requestSchema(path: string, method: string): Json {
  return resolve(document.paths[path][method].requestBody.content['application/json'].schema);
}

/** Every `enum` under a property called `code`, anywhere in the document. */
function codeEnums(node: Json, out: string[][] = []): string[][] {
  if (node && typeof node === 'object') {
    if (node.properties?.code?.enum) out.push(node.properties.code.enum);
    for (const value of Object.values(node)) codeEnums(value, out);
  }
  return out;
}

/** The SDK's types against the OpenAPI document the service generates (docs/openapi.json). */
describe('the SDK matches the OpenAPI document', () => {
  it('has exactly the generate request fields of the document', () => {
    expect([...GENERATE_REQUEST_FIELDS].sort()).toEqual(
      Object.keys(requestSchema('/v1/generate', 'post').properties).sort(),
    );
  });

  it('knows every format the document allows', () => {
    const format = requestSchema('/v1/generate', 'post').properties.format;
    expect([...FORMATS].sort()).toEqual([...format.enum].sort());
  });

  it('has every field of the generation result', () => {
    const result = resolve({ $ref: '#/components/schemas/GenerationResultDto' });
    expect([...GENERATION_RESULT_FIELDS].sort()).toEqual(Object.keys(result.properties).sort());
  });

  it('calls only paths the document has, and sends the Idempotency-Key it describes', () => {
    for (const path of API_PATHS) expect(Object.keys(document.paths)).toContain(path);
    const headers = document.paths['/v1/generate'].post.parameters.map((p: Json) => p.name.toLowerCase());
    expect(headers).toContain('idempotency-key');
  });

  it('knows the webhook events of the document', () => {
    expect([...WEBHOOK_EVENTS].sort()).toEqual(Object.keys(document.webhooks).sort());
  });

  it("knows every error code the server can send, and the document's enumerations", () => {
    expect([...ERROR_CODES].sort()).toEqual(Object.values(SERVER_ERROR_CODES).sort());
    for (const codes of codeEnums(document)) expect(ERROR_CODES).toEqual(expect.arrayContaining(codes));
  });
});
