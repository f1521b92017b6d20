import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, generate, request } from './support/app.js';
import { decode } from './support/images.js';
import { runMain, startProcess } from './support/process.js';

const dataDir = (name: string) => mkdtempSync(join(tmpdir(), `tf-${name}-`));

async function occupiedPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** Every start-up failure an operator can cause: one line naming the setting, exit status 78. */
describe('start-up failures', () => {
  const fileInTheWay = join(dataDir('file'), 'not-a-dir');
  writeFileSync(fileInTheWay, 'x');

  it.each([
    [
      'a DATA_DIR under /proc',
      { DATA_DIR: '/proc/self/thumbforge' },
      'DATA_DIR: /proc/self/thumbforge is on a kernel filesystem',
    ],
    [
      'a DATA_DIR below a file',
      { DATA_DIR: join(fileInTheWay, 'data') },
      `DATA_DIR: ${join(fileInTheWay, 'data')} is not a directory (ENOTDIR)`,
    ],
    [
      'cluster mode in the embedded process',
      { THUMBFORGE_MODE: 'cluster', KEY_ENCRYPTION_SECRET: 'a'.repeat(64) },
      'THUMBFORGE_MODE: cluster runs one process per service',
    ],
    [
      'a HOST of another machine',
      { HOST: '203.0.113.7', PORT: '0' },
      'HOST: "203.0.113.7" is not an address of this machine',
    ],
    [
      'an unknown trusted proxy',
      { TRUSTED_PROXIES: 'my-load-balancer' },
      'TRUSTED_PROXIES: expected IP addresses',
    ],
    ['a short ADMIN_TOKEN', { ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN: must be at least 16 characters'],
  ])('%s', async (_name, env, line) => {
    const { code, stderr } = await runMain({ DATA_DIR: dataDir('cfg'), HOST: '127.0.0.1', ...env });
    expect(code).toBe(78);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(`invalid configuration: ${line}`);
  });

  it('a PORT already in use', async () => {
    const { server, port } = await occupiedPort();
    try {
      const { code, stderr } = await runMain({
        DATA_DIR: dataDir('port'),
        HOST: '127.0.0.1',
        PORT: String(port),
      });
      expect(code).toBe(78);
      expect(stderr.trim()).toBe(
        `thumbforge embedded: invalid configuration: PORT: 127.0.0.1:${port} is already in use`,
      );
    } finally {
      server.close();
    }
  });
});

/** Starts a POST whose body is only half sent: a request in flight for as long as the test likes. */
function halfSentGenerate(base: string, body: string) {
  const { hostname, port } = new URL(base);
  const half = Math.floor(body.length / 2);
  let finish!: () => void;
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        hostname,
        port,
        path: '/v1/generate',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-api-key': 'tf_test_public',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, half));
    finish = () => req.end(body.slice(half));
  });
  return { response, finish: () => finish() };
}

describe('draining shutdown', () => {
  it('SIGTERM: readiness 503 and new requests refused at once, the in-flight request finishes, exit 0', async () => {
    const service = await startProcess(dataDir('drain'), { SHUTDOWN_DELAY_MS: '4000' });
    await eventually(async () => (await request(`${service.url}/health/ready`)).status === 200);
    const inFlight = halfSentGenerate(
      service.url,
      JSON.stringify({ title: 'Finishing after SIGTERM', format: 'x', outputFormat: 'png' }),
    );
    // The server has the request (its headers and half its body) before the signal.
    await new Promise((resolve) => setTimeout(resolve, 500));

    service.child.kill('SIGTERM');
    const ready = await eventually(async () => {
      const r = await request(`${service.url}/health/ready`);
      return r.status === 503 && r;
    });
    expect(ready.body).toEqual({ error: 'Not ready: shutdown', code: 'NOT_READY' });
    const refused = await generate(service.url, 'tf_test_public', { title: 'Too late', format: 'x' });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      error: 'The service is shutting down; retry on another instance',
      code: 'SHUTTING_DOWN',
    });

    inFlight.finish();
    const finished = await inFlight.response;
    expect(finished.status).toBe(200);
    const image = await decode(JSON.parse(finished.body).image);
    expect(image).toMatchObject({ format: 'png', width: 1200, height: 675 });
    expect(await service.exited).toBe(0);
    expect(service.output.join('')).toContain('draining before shutdown');
  });
});

describe('client address of the public test key', () => {
  const burst = (base: string) =>
    Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        generate(
          base,
          'tf_test_public',
          { title: 'Spoof', format: 'x' },
          { 'x-forwarded-for': `198.51.100.${i + 1}` },
        ),
      ),
    ).then((responses) => responses.map((r) => r.status));

  it('ignores X-Forwarded-For by default: a burst from one address is limited however it is labelled', async () => {
    const service = await startProcess(dataDir('xff'));
    try {
      expect(await burst(service.url)).toContain(429);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  });

  it('follows X-Forwarded-For from a configured proxy', async () => {
    const service = await startProcess(dataDir('xff-proxy'), { TRUSTED_PROXIES: 'loopback' });
    try {
      expect(await burst(service.url)).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  });
});
