import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOpenApiDocument } from '@thumbforge/gateway';
import { loadConfig } from '@thumbforge/platform';
import { createEmbeddedApp } from './bootstrap.js';

/** Writes the OpenAPI document generated from the DTOs (`npm run openapi` → docs/openapi.json). */
export async function generateOpenApi(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tf-openapi-'));
  const app = await createEmbeddedApp(
    loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_TOKEN: 'x'.repeat(32) }),
  );
  try {
    return `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const target = process.argv[2];
  const document = await generateOpenApi();
  if (target) writeFileSync(target, document);
  else process.stdout.write(document);
}
