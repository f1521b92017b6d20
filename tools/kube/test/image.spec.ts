import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImage, podman } from '../src/index.js';

/** A first build makes the base image with debootstrap and installs every dependency: minutes. */
const BUILD_TIMEOUT_MS = 30 * 60_000;

let image: string;
const container = `thumbforge-smoke-${randomBytes(4).toString('hex')}`;
const port = 20_000 + Math.floor(Math.random() * 10_000);

async function ready(): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health/ready`);
      if (response.ok || attempt > 240) return response;
    } catch (error) {
      if (attempt > 240) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

beforeAll(async () => {
  image = await buildImage();
  const started = await podman([
    'run',
    '-d',
    '--name',
    container,
    '--network',
    'host',
    // No systemd here to schedule the HEALTHCHECK; the test runs it with podman healthcheck run.
    '--health-interval',
    'disable',
    '-e',
    `PORT=${port}`,
    '-e',
    'ADMIN_TOKEN=smoke-test-admin-token',
    image,
    'embedded',
  ]);
  // podman also reports on stderr that it has no systemd to schedule the HEALTHCHECK with.
  expect(started.code, started.stderr).toBe(0);
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await podman(['rm', '-f', '-t', '0', container]);
});

describe('the image built from docker/Dockerfile', () => {
  it('serves /health/ready in embedded mode', async () => {
    const response = await ready();
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok' });
  }, 180_000);

  it('runs as uid and gid 10001, not root', async () => {
    // PID 1 is node itself: the entrypoint execs it.
    const status = await podman(['exec', container, 'cat', '/proc/1/status']);
    expect(status.stdout).toMatch(/^Uid:\s+10001\s+10001\s+10001\s+10001$/m);
    expect(status.stdout).toMatch(/^Gid:\s+10001\s+10001\s+10001\s+10001$/m);
    const cmdline = await podman(['exec', container, 'cat', '/proc/1/cmdline']);
    expect(cmdline.stdout.split('\0')).toEqual([
      'node',
      '--max-semi-space-size=4',
      '--initial-old-space-size=64',
      '--heap-growing-percent=25',
      '/app/docker/../services/embedded/dist/main.js',
      '',
    ]);
    // The entry point's memory settings reach the service.
    const environ = await podman(['exec', container, 'cat', '/proc/1/environ']);
    expect(environ.stdout.split('\0')).toEqual(
      expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_MMAP_THRESHOLD_=4194304']),
    );
  });

  it("passes the image's own HEALTHCHECK", async () => {
    const inspect = await podman(['image', 'inspect', image, '--format', '{{json .HealthCheck.Test}}']);
    expect(inspect.stdout).toContain('/health/live');
    const check = await podman(['healthcheck', 'run', container]);
    expect(check.code).toBe(0);
  });

  it('exits 64 naming the commands on an unknown command', async () => {
    const result = await podman(['run', '--rm', '--network', 'host', image, 'bogus']);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("unknown command 'bogus'");
    expect(result.stderr).toContain('gateway, billing, asset, rendering, webhook-delivery');
  });
});
