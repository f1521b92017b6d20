import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';

export const SERVICES = ['gateway', 'billing', 'asset', 'rendering', 'webhook-delivery'] as const;
export type ServiceName = (typeof SERVICES)[number];

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** What `npm start` and the image run: node with the services' memory settings. */
const ENTRYPOINT = join(REPO, 'docker', 'entrypoint.sh');

/**
 * `docker/entrypoint.sh <name>` with this process's node first on the PATH, so a local process runs
 * with the memory settings the image ships. The entry point execs node: the child's pid is the service's.
 */
export function spawnEntrypoint(
  name: string,
  env: NodeJS.ProcessEnv,
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn('sh', [ENTRYPOINT, name], {
    env: { ...env, PATH: `${dirname(process.execPath)}:${env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function serviceMain(service: ServiceName): string {
  return join(REPO, 'services', service, 'dist', 'main.js');
}

export interface ServiceProcess {
  service: ServiceName;
  port: number;
  url: string;
  child: ChildProcess;
  /** The last lines the process wrote (stdout and stderr), for failure messages. */
  output: string[];
  exited: Promise<number | null>;
}

export interface LocalClusterOptions {
  /** Settings for every process, over the cluster's own (e.g. `WEBHOOK_RETRY_DELAYS_MS`). */
  env?: Record<string, string>;
  /** The gateway's port (default: a free one). */
  gatewayPort?: number;
  /** Infrastructure state directory; an existing one is resumed with its data. */
  stateDir?: string;
  /** Receives provisioning and lifecycle lines (default: stderr). */
  onProgress?: (line: string) => void;
  /** Receives every line a service writes (default: kept only in `output`). */
  onOutput?: (service: ServiceName, line: string) => void;
  /** Processes per service (default one each). */
  replicas?: Partial<Record<ServiceName, number>>;
}

export interface LocalCluster {
  /** The first gateway replica. */
  gatewayUrl: string;
  /** Every gateway replica. */
  gatewayUrls: string[];
  cdnUrl: string;
  adminToken: string;
  infra: RunningInfrastructure;
  /** The settings every process got. */
  env: Record<string, string>;
  /** The first replica of each service. */
  processes: Record<ServiceName, ServiceProcess>;
  replicas: Record<ServiceName, ServiceProcess[]>;
  /** Sends a signal (default SIGKILL) to a service's replica (default the first) and waits until it has exited. */
  kill(service: ServiceName, signal?: NodeJS.Signals, replica?: number): Promise<number | null>;
  /** Starts a service's replica (default the first) again on the same port and waits until it is ready. */
  restart(service: ServiceName, replica?: number): Promise<ServiceProcess>;
  /** Stops the services gracefully (SIGTERM), then the infrastructure; idempotent. */
  stop(): Promise<void>;
}

const OUTPUT_LINES = 200;
const READY_TIMEOUT_MS = 90_000;
const PUBLIC_BUCKET = 'thumbforge-public';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The cluster settings of the real servers, as each service process reads them from its environment. */
export function clusterEnv(infra: RunningInfrastructure, adminToken: string): Record<string, string> {
  return {
    THUMBFORGE_MODE: 'cluster',
    HOST: '127.0.0.1',
    ADMIN_TOKEN: adminToken,
    KEY_ENCRYPTION_SECRET: randomBytes(32).toString('hex'),
    KAFKA_BROKERS: infra.kafka.brokers.join(','),
    MONGODB_URI: `${infra.mongo.uri.replace(/\/+$/, '')}/thumbforge`,
    S3_ENDPOINT: infra.s3.endpoint,
    S3_REGION: infra.s3.region,
    S3_ACCESS_KEY_ID: infra.s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: infra.s3.secretAccessKey,
    S3_PUBLIC_BUCKET: PUBLIC_BUCKET,
    S3_PRIVATE_BUCKET: 'thumbforge-private',
    // MinIO is the CDN here: image links point straight at the public bucket.
    S3_PUBLIC_READ: '1',
    CDN_URL: `${infra.s3.endpoint}/${PUBLIC_BUCKET}`,
  };
}

async function waitUntilReady(proc: ServiceProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exitCode: number | null | undefined;
  void proc.exited.then((code) => (exitCode = code));
  for (;;) {
    if (exitCode !== undefined)
      throw new Error(`${proc.service} exited with ${exitCode}:\n${proc.output.join('\n')}`);
    try {
      const res = await fetch(`${proc.url}/health/ready`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${proc.service} was not ready in time:\n${proc.output.join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function spawnService(
  service: ServiceName,
  port: number,
  env: Record<string, string>,
  onOutput?: LocalClusterOptions['onOutput'],
): ServiceProcess {
  const main = serviceMain(service);
  if (!existsSync(main)) throw new Error(`${main} is missing: build first (nx run-many -t build)`);
  const child = spawnEntrypoint(service, { ...process.env, ...env, PORT: String(port) });
  const output: string[] = [];
  const collect = (chunk: string) => {
    for (const line of chunk.split('\n')) {
      if (!line) continue;
      output.push(line);
      if (output.length > OUTPUT_LINES) output.shift();
      onOutput?.(service, line);
    }
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { service, port, url: `http://127.0.0.1:${port}`, child, output, exited };
}

/**
 * Real Kafka, FerretDB and MinIO (tools/infra) plus the processes of every service (one each unless
 * `replicas` says more), each on its own port, resolved once every process answers /health/ready.
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const progress = options.onProgress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const infra = await startInfrastructure({
    services: ['kafka', 'mongo', 's3'],
    onProgress: progress,
    ...(options.stateDir ? { stateDir: options.stateDir } : {}),
  });
  const adminToken = options.env?.ADMIN_TOKEN ?? randomBytes(24).toString('hex');
  const dataDir = mkdtempSync(join(tmpdir(), 'thumbforge-cluster-'));
  const env: Record<string, string> = {
    ...clusterEnv(infra, adminToken),
    DATA_DIR: dataDir,
    ...options.env,
  };
  const replicas = Object.fromEntries(SERVICES.map((s) => [s, [] as ServiceProcess[]])) as Record<
    ServiceName,
    ServiceProcess[]
  >;
  const processes = {} as Record<ServiceName, ServiceProcess>;
  let stopping: Promise<void> | undefined;

  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all(
        Object.values(replicas)
          .flat()
          .map(async (proc) => {
            if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM');
            await proc.exited;
          }),
      );
      await infra.stop();
      await rm(dataDir, { recursive: true, force: true });
    })());

  const launch = async (service: ServiceName, replica: number, port: number) => {
    const proc = spawnService(service, port, env, options.onOutput);
    replicas[service][replica] = proc;
    if (replica === 0) processes[service] = proc;
    await waitUntilReady(proc);
    progress(`[cluster] ${service}#${replica} ready on ${proc.url} (pid ${proc.child.pid})`);
    return proc;
  };

  try {
    // The first start creates the topics; one process at a time keeps that and the group joins calm.
    for (const service of SERVICES) {
      const count = options.replicas?.[service] ?? 1;
      for (let replica = 0; replica < count; replica++) {
        const port =
          service === 'gateway' && replica === 0 && options.gatewayPort
            ? options.gatewayPort
            : await freePort();
        await launch(service, replica, port);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    gatewayUrl: processes.gateway.url,
    gatewayUrls: replicas.gateway.map((proc) => proc.url),
    cdnUrl: env.CDN_URL!,
    adminToken,
    infra,
    env,
    processes,
    replicas,
    async kill(service, signal = 'SIGKILL', replica = 0) {
      const proc = replicas[service][replica]!;
      proc.child.kill(signal);
      return proc.exited;
    },
    restart: (service, replica = 0) => launch(service, replica, replicas[service][replica]!.port),
    stop,
  };
}
