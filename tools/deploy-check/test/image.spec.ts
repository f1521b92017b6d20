import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { SERVICES, serviceMain } from '@thumbforge/local-cluster';
import { describe, expect, it } from 'vitest';
import {
  analyzeDockerfile,
  copiedFrom,
  ENTRYPOINT,
  entrypointCommands,
  instructions,
  labels,
  REPO,
  type Stage,
} from '../src/index.js';

const dockerfile = analyzeDockerfile();
const runtime = dockerfile.stages.at(-1)!;
const build = dockerfile.stages[0]!;
const commands = entrypointCommands();
const runs = (stage: Stage) => instructions(stage, 'RUN').join('\n');

describe('docker/Dockerfile', () => {
  it('has no problems by dockerfile-utils', () => {
    expect(dockerfile.problems.map((p) => `line ${p.range.start.line + 1}: ${p.message}`)).toEqual([]);
  });

  it('builds in one stage and runs from another, on node 24 slim pinned by tag', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile.stages) {
      expect(stage.image).toBe('node');
      expect(stage.tag).toBe('24-bookworm-slim');
    }
    expect(build.name).toBeTruthy();
    expect(copiedFrom(runtime)).toContain(build.name);
  });

  it('installs and builds the runtime projects in the build stage', () => {
    expect(runs(build)).toMatch(/npm install\b/);
    expect(runs(build)).toContain('nx run-many -t build --projects=tag:runtime');
  });

  it('ships production dependencies only, proving sharp loads after pruning', () => {
    expect(runs(build)).toMatch(/npm prune --omit=dev|npm install [^\n]*--omit=dev/);
    expect(runs(build)).toMatch(/require\('sharp'\)/);
    // Pruning must not drop optional dependencies: sharp's native library is one.
    expect(runs(build)).not.toMatch(/--omit=optional|--no-optional/);
    // The runtime stage installs nothing itself; it copies the pruned tree.
    expect(runs(runtime)).not.toMatch(/npm (install|ci)\b/);
  });

  it('runs as a numeric non-root user in the final stage', () => {
    const users = instructions(runtime, 'USER');
    expect(users.length).toBeGreaterThan(0);
    const [uid, gid] = users.at(-1)!.split(':');
    expect(uid).toMatch(/^\d+$/);
    expect(Number(uid)).toBeGreaterThan(0);
    if (gid !== undefined) expect(gid).toMatch(/^\d+$/);
  });

  it('checks liveness with node and carries the OCI labels', () => {
    const [healthcheck] = instructions(runtime, 'HEALTHCHECK');
    expect(healthcheck).toContain('/health/live');
    expect(healthcheck).toMatch(/CMD \["node"/);
    const found = labels(runtime);
    for (const key of ['title', 'description', 'version', 'revision', 'created', 'licenses'])
      expect(found.has(`org.opencontainers.image.${key}`), key).toBe(true);
  });

  it('enters through docker/entrypoint.sh', () => {
    expect(instructions(runtime, 'ENTRYPOINT')).toEqual(['["/app/docker/entrypoint.sh"]']);
    expect(instructions(runtime, 'WORKDIR')).toContain('/app');
  });

  it('keeps dependencies, build output and caches out of the build context', () => {
    const ignored = readFileSync(join(REPO, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['**/node_modules', '**/dist', '.git', '.nx']) expect(ignored).toContain(entry);
  });
});

describe('docker/entrypoint.sh', () => {
  it('maps every service to node on the entry point the cluster tests run, built', () => {
    for (const service of SERVICES) {
      const main = relative(REPO, serviceMain(service));
      expect(commands.get(service), service).toBe(main);
      expect(existsSync(join(REPO, main)), `${main} (build first: npm run build)`).toBe(true);
    }
  });

  it('also runs embedded mode and the topic creation command', () => {
    expect(commands.get('embedded')).toBe('services/embedded/dist/main.js');
    expect(commands.get('create-topics')).toBe('libs/cluster/dist/create-topics.js');
    for (const main of commands.values()) expect(existsSync(join(REPO, main)), main).toBe(true);
  });

  // The script itself, with a stand-in `node` that prints what it was asked to run.
  const run = (args: string[]) => {
    const bin = mkdtempSync(join(tmpdir(), 'thumbforge-entrypoint-'));
    writeFileSync(
      join(bin, 'node'),
      '#!/bin/sh\necho "node $* mode=$THUMBFORGE_MODE arenas=$MALLOC_ARENA_MAX mmap=$MALLOC_MMAP_THRESHOLD_"\n',
    );
    chmodSync(join(bin, 'node'), 0o755);
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('sh', [ENTRYPOINT, ...args], { cwd: REPO, env }, (error, stdout, stderr) =>
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr }),
      ),
    );
  };

  // The mapped file from the script's own directory, so `npm start` runs it from a checkout too.
  // Embedded mode also starts with a larger old generation, grows it by a quarter and maps only
  // blocks above 4 MiB afresh.
  const node = (main: string, embedded = false) =>
    `node --max-semi-space-size=4 ${embedded ? '--initial-old-space-size=64 --heap-growing-percent=25 ' : ''}${dirname(ENTRYPOINT)}/../${main}`;
  const memory = (embedded = false) => `arenas=2 mmap=${embedded ? 4194304 : 1048576}`;

  it('execs node on the mapped file with the remaining arguments, in the mode it needs', async () => {
    for (const service of SERVICES) {
      expect((await run([service])).stdout.trim()).toBe(
        `${node(commands.get(service)!)} mode=cluster ${memory()}`,
      );
    }
    expect((await run(['embedded'])).stdout.trim()).toBe(
      `${node('services/embedded/dist/main.js', true)} mode=embedded ${memory(true)}`,
    );
    expect((await run(['cli', 'accounts', 'get', 'acc_1'])).stdout.trim()).toBe(
      `${node('services/embedded/dist/cli.js')} accounts get acc_1 mode=embedded ${memory()}`,
    );
  });

  it('refuses an unknown command with the list of known ones', async () => {
    const result = await run(['gatway']);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("unknown command 'gatway'");
    for (const name of commands.keys()) expect(result.stderr).toContain(name);
  });
});
