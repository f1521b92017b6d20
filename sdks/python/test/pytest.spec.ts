import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '@thumbforge/contracts';
import { startProcess, type ServiceProcess } from '@thumbforge/embedded/test/support/process.js';
import { ADMIN_TOKEN } from '@thumbforge/embedded/test/support/http.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(root, '../..');

/**
 * The Python SDK: its wheel is built and installed, then its pytest suite runs against the built
 * embedded service, in a virtualenv that tools/infra/python-venv makes from test/requirements.txt.
 */
describe('Python SDK', () => {
  let python: string;
  let wheel: string;
  let service: ServiceProcess;

  beforeAll(async () => {
    python = execFileSync(join(repo, 'tools/infra/python-venv'), [join(root, 'test/requirements.txt')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    service = await startProcess(mkdtempSync(join(tmpdir(), 'tf-pysdk-')), { RATE_LIMITS: 'pro=1000' });
  });
  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
  });

  it('builds into a wheel', () => {
    // Built from a copy: setuptools writes build/ and *.egg-info next to the sources.
    const source = mkdtempSync(join(tmpdir(), 'tf-pysdk-src-'));
    for (const entry of ['pyproject.toml', 'README.md', 'src'])
      cpSync(join(root, entry), join(source, entry), { recursive: true });
    const dist = join(source, 'wheels');
    execFileSync(
      python,
      ['-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', '-q', '-w', dist, source],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    expect(readdirSync(dist)).toEqual(['thumbforge-0.1.0-py3-none-any.whl']);
    wheel = join(dist, 'thumbforge-0.1.0-py3-none-any.whl');
  });

  it('passes its pytest suite, installed from the wheel, against the running service', () => {
    const site = mkdtempSync(join(tmpdir(), 'tf-pysdk-site-'));
    execFileSync(python, ['-m', 'pip', 'install', '--no-deps', '-q', '--target', site, wheel], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const run = spawnSync(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', join(root, 'tests')], {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        PYTHONPATH: site,
        PYTHONDONTWRITEBYTECODE: '1',
        THUMBFORGE_URL: service.url,
        THUMBFORGE_ADMIN_TOKEN: ADMIN_TOKEN,
        THUMBFORGE_OPENAPI: join(repo, 'docs/openapi.json'),
        THUMBFORGE_ERROR_CODES: JSON.stringify(Object.values(ERROR_CODES)),
      },
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
    // The SDK under test is the installed wheel, not the source folder.
    expect(output).toMatch(/\b11 passed\b/);
  });
});
