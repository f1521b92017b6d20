import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const probe = fileURLToPath(new URL('./fixtures/loaded-packages.mjs', import.meta.url));

/** The packages a process loads after importing `entries` from their builds (`npm test` builds them first). */
async function loadedPackages(entries: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [probe, ...entries], { cwd: root });
  return JSON.parse(stdout) as string[];
}

/** What only the gateway's HTTP API needs, and what only a process exporting telemetry needs. */
const API_ONLY = ['@nestjs/swagger', 'class-validator', 'libphonenumber-js'];
const UNUSED_EVERYWHERE = ['@opentelemetry/sdk-node', '@grpc/grpc-js', 'linkedom', 'htmlparser2'];

describe('what a process loads (resident memory: each of these is megabytes of code and heap)', () => {
  it.each([
    // undici only where the service calls out: webhook-delivery always, rendering with an image API.
    ['rendering', ['undici']],
    ['billing', ['undici']],
    ['asset', ['undici']],
    ['webhook-delivery', []],
  ])(
    '%s loads neither the API documentation and validation, nor the telemetry SDK, nor a DOM, nor %j',
    async (service, unused) => {
      const loaded = await loadedPackages([
        `@thumbforge/${service}`,
        '@thumbforge/cluster',
        '@thumbforge/platform',
      ]);
      expect(loaded).toEqual(expect.arrayContaining(['@nestjs/core', 'kafkajs']));
      const never = [...API_ONLY, ...UNUSED_EVERYWHERE, ...unused];
      expect(loaded.filter((name) => never.includes(name))).toEqual([]);
    },
  );

  it.each(['gateway', 'embedded'])(
    '%s loads the API documentation, but no telemetry SDK or DOM',
    async (service) => {
      const loaded = await loadedPackages([`@thumbforge/${service}`, '@thumbforge/platform']);
      expect(loaded).toEqual(expect.arrayContaining(API_ONLY));
      expect(loaded.filter((name) => UNUSED_EVERYWHERE.includes(name))).toEqual([]);
    },
  );
});
