import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '@thumbforge/contracts';
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

  it("passes Redocly's recommended rules with no error and no warning", () => {
    const redocly = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
    const run = spawnSync(
      process.execPath,
      [redocly, 'lint', CHECKED_IN, '--extends=recommended', '--format=json'],
      {
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number };
      problems: unknown[];
    };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('documents what the service does: statuses, error codes and headers', () => {
    const doc = JSON.parse(readFileSync(CHECKED_IN, 'utf8'));
    const responses = (path: string, method: string) => doc.paths[path][method].responses;
    expect(Object.keys(responses('/v1/jobs/{jobId}', 'get'))).toEqual(
      expect.arrayContaining(['200', '401', '403', '404', '503']),
    );
    expect(Object.keys(responses('/admin/v1/rebuild', 'post'))).toContain('200');
    expect(Object.keys(responses('/admin/v1/rebuild', 'post'))).not.toContain('201');
    expect(Object.keys(responses('/admin/v1/accounts/{id}', 'patch'))).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '413', '503']),
    );
    expect(doc.components.schemas.ErrorDto.properties.code.enum).toEqual(Object.values(ERROR_CODES));
    expect(doc.components.schemas.GenerateRequestDto.properties.customAssetsId.minLength).toBe(1);
    const generate = responses('/v1/generate', 'post');
    expect(Object.keys(generate['200'].headers)).toEqual(
      expect.arrayContaining([
        'X-Request-Id',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
      ]),
    );
    expect(Object.keys(generate['429'].headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'X-Request-Id']),
    );
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/health'))).toEqual([]);
  });
});
