import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateOpenApi } from '../src/openapi.js';

const CHECKED_IN = join(dirname(fileURLToPath(import.meta.url)), '../../../docs/openapi.json');

describe('OpenAPI document', () => {
  it('is generated from the DTOs and matches the checked-in docs/openapi.json (run `npm run openapi`)', async () => {
    const generated = await generateOpenApi();
    expect(JSON.parse(generated)).toEqual(JSON.parse(readFileSync(CHECKED_IN, 'utf8')));
    const doc = JSON.parse(generated);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/generate', '/v1/jobs/{jobId}', '/admin/v1/accounts']),
    );
    expect(doc.components.schemas.GenerateRequestDto.required).toEqual(['title']);
  });
});
