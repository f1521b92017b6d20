import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, SERVICES, spawnEntrypoint, startLocalCluster } from '@thumbforge/local-cluster';
import type { CpuProcesses } from './cpu.js';

export type Mode = 'embedded' | 'cluster';

/** A running Thumbforge the bench sends requests to. */
export interface Target {
  mode: Mode;
  url: string;
  adminToken: string;
  /** Each service process by name (cluster: the first replica of each), for their memory. */
  processes(): Record<string, number>;
  /** Every process serving requests by name, servers included, for the CPU they take. */
  cpuProcesses(): Promise<Record<string, CpuProcesses>>;
  /** The cluster's Kafka, which outlives `stopServices` (FerretDB and MinIO do not). */
  kafkaBrokers?: string[];
  /** Embedded: from spawning the process until `/health/ready` answered 200. */
  readyMs?: number;
  /** Stops the service processes, and the cluster's servers but Kafka. */
  stopServices(): Promise<void>;
  /** Stops everything; idempotent. */
  stop(): Promise<void>;
}

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
export const EMBEDDED_MAIN = join(REPO, 'services', 'embedded', 'dist', 'main.js');
const READY_TIMEOUT_MS = 600_000;

/**
 * Settings both modes run with: rate limits out of the way (the bench measures rendering and the log,
 * not the limiter) and webhooks to the bench's own loopback receiver. Everything else is the default.
 */
export function benchEnv(adminToken: string): Record<string, string> {
  return {
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'free=100000,creator=100000,pro=100000,business=100000',
    WEBHOOK_ALLOW_PRIVATE: '1',
  };
}

async function waitUntilReady(url: string, exited: () => number | null | undefined, output: string[]) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const code = exited();
    if (code !== undefined) throw new Error(`embedded process exited with ${code}:\n${output.join('')}`);
    const status = await fetch(`${url}/health/ready`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`embedded process not ready in time:\n${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * `docker/entrypoint.sh embedded` on a free port, as `npm start` runs it (this node, the service's
 * memory settings), with a fresh data directory removed on stop, or with `dataDir`, which is kept.
 */
export async function startEmbedded(options: { dataDir?: string } = {}): Promise<Target> {
  if (!existsSync(EMBEDDED_MAIN)) {
    throw new Error(
      `${EMBEDDED_MAIN} is missing: build first (npx nx run-many -t build --projects=tag:runtime)`,
    );
  }
  const adminToken = randomBytes(24).toString('hex');
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'thumbforge-bench-embedded-')));
  const port = await freePort();
  const spawned = performance.now();
  const child = spawnEntrypoint('embedded', {
    ...process.env,
    ...benchEnv(adminToken),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
  });
  const output: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.on('exit', (code) => {
      exitCode = code;
      resolve();
    }),
  );
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (exitCode === undefined) child.kill('SIGTERM');
      await exited;
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
      if (exitCode !== 0) throw new Error(`embedded process exited with ${exitCode}:\n${output.join('')}`);
    })());
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(url, () => exitCode, output);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const readyMs = performance.now() - spawned;
  const pid = child.pid!;
  return {
    mode: 'embedded',
    url,
    adminToken,
    processes: () => ({ embedded: pid }),
    cpuProcesses: async () => ({ embedded: { pids: [pid] } }),
    readyMs,
    stopServices: stop,
    stop,
  };
}

/** The servers a local cluster runs beside the services, by the name of their pid files (tools/infra). */
const SERVERS = ['kafka', 'ferretdb', 'minio'] as const;

/** The pid `tools/infra` recorded for a server it started, the leader of the server's process group. */
async function serverPid(stateDir: string, server: (typeof SERVERS)[number]): Promise<number> {
  const pid = Number((await readFile(join(stateDir, `${server}.pid`), 'utf8')).trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`no pid of ${server} in ${stateDir}`);
  return pid;
}

/**
 * The five service processes on real Kafka, FerretDB and MinIO (`startLocalCluster`), with the
 * bench's settings and `env` on top.
 */
export async function startCluster(env: Record<string, string> = {}): Promise<Target> {
  const adminToken = randomBytes(24).toString('hex');
  const cluster = await startLocalCluster({
    env: { ...benchEnv(adminToken), ...env },
    onProgress: () => undefined,
  });
  return {
    mode: 'cluster',
    url: cluster.gatewayUrl,
    adminToken,
    kafkaBrokers: cluster.infra.kafka.brokers,
    processes: () =>
      Object.fromEntries(SERVICES.map((service) => [service, cluster.replicas[service][0]!.child.pid!])),
    cpuProcesses: async () => ({
      ...Object.fromEntries(
        SERVICES.map((service) => [
          service,
          { pids: cluster.replicas[service].map((replica) => replica.child.pid!) },
        ]),
      ),
      ...Object.fromEntries(
        await Promise.all(
          SERVERS.map(async (server) => [
            server,
            { pids: [await serverPid(cluster.infra.stateDir, server)], group: true },
          ]),
        ),
      ),
    }),
    stopServices: async () => {
      await Promise.all(SERVICES.map((service) => cluster.kill(service, 'SIGTERM')));
      // What runs after the services (the ledger replays) reads Kafka alone.
      await Promise.all((['mongo', 's3'] as const).map((server) => cluster.infra.stopServer(server)));
    },
    stop: () => cluster.stop(),
  };
}

const SD_COST = 10;
const BUSINESS_CREDITS = 10_000;

/**
 * Business accounts whose monthly credits cover `requests` youtube sd requests with a margin, and at
 * least one per connection of the bench's loads: billing decides one account's reservations one after
 * another, so concurrent requests of one account would measure that queue rather than the service.
 */
export function accountsCovering(requests: number, connections: number): number {
  return Math.max(connections, Math.ceil((requests * SD_COST) / (BUSINESS_CREDITS * 0.9)));
}

/** Creates business accounts through the admin API and returns their API keys. */
export async function createAccounts(target: Target, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${target.url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'business' }),
    });
    const body = (await res.json()) as { apiKey?: string };
    if (res.status !== 201 || !body.apiKey) {
      throw new Error(`${target.mode}: account creation failed: ${res.status} ${JSON.stringify(body)}`);
    }
    keys.push(body.apiKey);
  }
  return keys;
}

/** A process's resident memory now, in MiB. */
export async function residentMiB(pid: number): Promise<number> {
  const kb = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb[1]) / 1024;
}
