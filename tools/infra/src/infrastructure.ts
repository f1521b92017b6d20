import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export type InfraService = 'kafka' | 'mongo' | 's3';

export const ALL_SERVICES: readonly InfraService[] = ['kafka', 'mongo', 's3'];

export interface KafkaEndpoint {
  brokers: string[];
  /** Apache Kafka version of the broker. */
  version: string;
  /** The SASL_SSL listener, when started with `kafkaSaslSsl`. */
  saslSsl?: KafkaSaslSslEndpoint;
}

/** A listener with TLS (a CA made for the run) and SASL: PLAIN and SCRAM-SHA-256/512 users. */
export interface KafkaSaslSslEndpoint {
  brokers: string[];
  /** PEM file of the CA that signed the broker's certificate. */
  caFile: string;
  plain: { username: string; password: string };
  /** Has credentials for both SCRAM-SHA-256 and SCRAM-SHA-512. */
  scram: { username: string; password: string };
}

export interface MongoEndpoint {
  /** `mongodb://host:port/`; adapters add their database name. */
  uri: string;
  version: string;
}

export interface S3Endpoint {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export interface Endpoints {
  kafka: KafkaEndpoint;
  mongo: MongoEndpoint;
  s3: S3Endpoint;
}

/** What `tools/infra/up` writes to `<stateDir>/infrastructure.json`. */
export type InfrastructureFile = { stateDir: string } & Partial<Endpoints>;

export type RunningInfrastructure<S extends InfraService = InfraService> = Pick<Endpoints, S> & {
  stateDir: string;
  /** Stops the servers and removes their data; safe to call more than once. */
  stop(): Promise<void>;
  /** Stops one server (an outage), keeping its data, port and credentials; a no-op if it is stopped. */
  stopServer(service: S): Promise<void>;
  /** Starts a stopped server again on the same port with the same data; resolves once it answers. */
  startServer(service: S): Promise<void>;
};

export interface StartOptions<S extends InfraService> {
  /** Which servers to start (default: all three). */
  services?: readonly S[];
  /** Where data, logs and pid files live (default: a new temp dir). An existing one is reused. */
  stateDir?: string;
  /** Receives provisioning and start-up progress lines (default: written to stderr). */
  onProgress?: (line: string) => void;
  /** The address the servers listen on and advertise (default 127.0.0.1). */
  host?: string;
  /** Also give Kafka a SASL_SSL listener (see `KafkaSaslSslEndpoint`). */
  kafkaSaslSsl?: boolean;
}

const INFRA_DIR = fileURLToPath(new URL('..', import.meta.url));
const UP = `${INFRA_DIR}up`;
const DOWN = `${INFRA_DIR}down`;
const SERVER = `${INFRA_DIR}server`;

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** Written to the command's stdin (default: none). */
  input?: string;
  /** Receives each line of stderr as it comes (progress lines of the provisioning scripts). */
  onStderr?: (line: string) => void;
}

/** Runs a command; a non-zero exit is a result, so callers decide what a failure means. */
export function runCommand(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'pipe', env: options.env ?? process.env });
    let stdout = '';
    let stderr = '';
    let partial = '';
    const onLine = options.onStderr ?? (() => undefined);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      lines.forEach(onLine);
    });
    child.stdin.end(options.input ?? '');
    child.on('error', reject);
    child.on('close', (code) => {
      if (partial) onLine(partial);
      resolve({ code, stdout, stderr });
    });
  });
}

function run(script: string, args: string[], onLine: (line: string) => void): Promise<RunResult> {
  return runCommand('bash', [script, ...args], { onStderr: onLine });
}

function defaultProgress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * Starts real Kafka (KRaft), FerretDB and MinIO on free loopback ports through `tools/infra/up`,
 * provisioning them first (cached after the first run), and resolves once each answers. The servers
 * are tied to this process: if it dies without calling `stop`, a watchdog stops them.
 * Rejects with the servers' log tails when anything fails; it never resolves with a partial set.
 */
export async function startInfrastructure<S extends InfraService = InfraService>(
  options: StartOptions<S> = {},
): Promise<RunningInfrastructure<S>> {
  const services = options.services ?? (ALL_SERVICES as readonly S[]);
  if (services.length === 0) throw new TypeError('startInfrastructure needs at least one service');
  const args = ['--services', services.join(','), '--owner-pid', String(process.pid)];
  if (options.stateDir) args.push('--state-dir', options.stateDir);
  if (options.host) args.push('--host', options.host);
  if (options.kafkaSaslSsl) args.push('--kafka-sasl-ssl');
  const result = await run(UP, args, options.onProgress ?? defaultProgress);
  if (result.code !== 0) {
    const tail = result.stderr.trim().split('\n').slice(-40).join('\n');
    throw new Error(`tools/infra/up failed (exit code ${result.code}):\n${tail}`);
  }
  const file = parseInfrastructure(result.stdout);
  for (const service of services) {
    if (!file[service]) throw new Error(`tools/infra/up reported no ${service} endpoint`);
  }
  return withControls(file, options.onProgress ?? defaultProgress) as RunningInfrastructure<S>;
}

/** Reads the `infrastructure.json` of servers started elsewhere (e.g. by `tools/infra/up` in a shell). */
export async function readInfrastructure(path: string): Promise<InfrastructureFile> {
  return parseInfrastructure(await readFile(path, 'utf8'));
}

export interface StopOptions {
  /** Keep the state directory and its data, so `startInfrastructure({ stateDir })` resumes it. */
  keepData?: boolean;
  onProgress?: (line: string) => void;
}

/** Stops the servers of a state directory (what `stop()` does), e.g. from a global teardown. */
export async function stopInfrastructure(stateDir: string, options: StopOptions = {}): Promise<void> {
  const args = options.keepData ? [stateDir, '--keep-data'] : [stateDir];
  const result = await run(DOWN, args, options.onProgress ?? defaultProgress);
  if (result.code !== 0) {
    throw new Error(`tools/infra/down failed (exit code ${result.code}):\n${result.stderr.trim()}`);
  }
}

export interface ServerOptions {
  onProgress?: (line: string) => void;
}

async function controlServer(
  stateDir: string,
  action: 'stop' | 'start',
  service: InfraService,
  options: ServerOptions,
): Promise<void> {
  const result = await run(SERVER, [stateDir, action, service], options.onProgress ?? defaultProgress);
  if (result.code !== 0) {
    const tail = result.stderr.trim().split('\n').slice(-30).join('\n');
    throw new Error(`tools/infra/server ${action} ${service} failed (exit code ${result.code}):\n${tail}`);
  }
}

/** Stops one server of a state directory (`tools/infra/server <dir> stop`), keeping its data and port. */
export function stopServer(
  stateDir: string,
  service: InfraService,
  options: ServerOptions = {},
): Promise<void> {
  return controlServer(stateDir, 'stop', service, options);
}

/** Starts a stopped server of a state directory again where it was, and resolves once it answers. */
export function startServer(
  stateDir: string,
  service: InfraService,
  options: ServerOptions = {},
): Promise<void> {
  return controlServer(stateDir, 'start', service, options);
}

function parseInfrastructure(text: string): InfrastructureFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`tools/infra/up printed no JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    typeof (parsed as InfrastructureFile).stateDir !== 'string'
  ) {
    throw new Error('infrastructure JSON lacks stateDir');
  }
  return parsed as InfrastructureFile;
}

function withControls(
  file: InfrastructureFile,
  onProgress: (line: string) => void,
): InfrastructureFile & Pick<RunningInfrastructure, 'stop' | 'stopServer' | 'startServer'> {
  let stopping: Promise<void> | undefined;
  return {
    ...file,
    stop: () => (stopping ??= stopInfrastructure(file.stateDir, { onProgress })),
    stopServer: (service) => stopServer(file.stateDir, service, { onProgress }),
    startServer: (service) => startServer(file.stateDir, service, { onProgress }),
  };
}

/**
 * A vitest `globalSetup` body: starts the servers once for a whole test run, hands their endpoints to
 * the tests (`inject(key)`), and returns the teardown.
 *
 *   // global-setup.ts
 *   export default infrastructureGlobalSetup(['kafka', 'mongo']);
 */
export function infrastructureGlobalSetup<S extends InfraService>(
  services: readonly S[] = ALL_SERVICES as readonly S[],
  key = 'infrastructure',
): (project: { provide(key: string, value: unknown): void }) => Promise<() => Promise<void>> {
  return async (project) => {
    const infra = await startInfrastructure({ services });
    const { stop, stopServer: _stopServer, startServer: _startServer, ...endpoints } = infra;
    project.provide(key, endpoints);
    return stop;
  };
}
