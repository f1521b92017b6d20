import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin } from './support/app.js';
import { startProcess, type ServiceProcess } from './support/process.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const PROVISION = join(HERE, '../../../tools/infra/scripts/provision-schemathesis.sh');
const CONFIG = join(HERE, 'schemathesis.toml');
/** Examples per operation and phase: about 2,400 cases over the 14 operations. */
const MAX_EXAMPLES = 100;

/** schemathesis (from PyPI, installed into the tools cache) against the running service's own document. */
describe('schemathesis over /openapi.json, every check enabled', () => {
  let service: ServiceProcess;
  let st: string;
  let apiKey: string;

  beforeAll(async () => {
    const provisioned = spawnSync(PROVISION, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (provisioned.status !== 0) throw new Error('provisioning schemathesis failed');
    st = provisioned.stdout.trim();
    // Per-key limits lifted for the run; the per-address limit of the public key is not used.
    service = await startProcess(mkdtempSync(join(tmpdir(), 'tf-schemathesis-')), {
      RATE_LIMITS: 'free=100000,creator=100000,pro=100000,business=100000',
    });
    apiKey = (await admin(service.url).createAccount('business')).apiKey;
  }, 1_800_000);
  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
  });

  it(`finds no failure in at least 2,000 generated cases`, async () => {
    const output: string[] = [];
    const code = await new Promise<number | null>((resolve) => {
      const run = spawn(
        st,
        [
          '--config-file',
          CONFIG,
          'run',
          `${service.url}/openapi.json`,
          '--checks',
          'all',
          '-n',
          String(MAX_EXAMPLES),
          '--no-color',
        ],
        {
          env: { ...process.env, THUMBFORGE_API_KEY: apiKey, THUMBFORGE_ADMIN_TOKEN: ADMIN_TOKEN },
          stdio: ['ignore', 'pipe', 'pipe'],
          // It keeps a cache of findings in its working directory: not in the repository.
          cwd: mkdtempSync(join(tmpdir(), 'tf-st-')),
        },
      );
      run.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      run.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      run.on('exit', resolve);
    });
    const report = output.join('');
    const summary = /(\d+) generated, (\d+) passed/.exec(report);
    expect(summary, report.slice(-4000)).not.toBeNull();
    console.log(`schemathesis: ${summary![0]}`);
    expect(code, report.slice(-4000)).toBe(0);
    expect(report).not.toMatch(/\d+ found \d+ unique failures/);
    expect(Number(summary![1])).toBeGreaterThanOrEqual(2_000);
    expect(Number(summary![2])).toBe(Number(summary![1]));
  }, 1_800_000);
});
