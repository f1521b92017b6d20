import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Renderer } from '@thumbforge/design-engine';
import sharp from 'sharp';
import { generateBody, KeyRing, syncUnderLoad, type LoadResult } from '../cluster/latency.js';
import type { Progress } from '../cluster/progress.js';
import { summarize, type LatencySummary } from '../cluster/stats.js';
import { createAccounts, startEmbedded } from '../cluster/targets.js';
import { measureStartup, type StartupMeasurement } from '../startup/startup.js';
import { jobFromBody } from './render-job.js';

export type ServerKind = 'render-inline' | 'render-pool' | 'embedded';

export interface ServiceBenchOptions {
  /** Connection counts of the load runs, each against every server. */
  connections: readonly number[];
  /** Requests per load run, per connection. */
  requestsPerConnection: number;
  /** Minimum requests of a load run, so one connection still gives percentiles. */
  minRequests: number;
  /** Untimed requests to each server first. */
  warmup: number;
  /** In-process renders for the bare engine and sharp's default encode. */
  bareRenders: number;
  /** Total requests to the embedded service after which its RSS is read (ascending). */
  rssAt: readonly number[];
  /** Billing events of the start-up rows' history (0: no start-up rows). */
  startupEvents: number;
  startupAccounts: number;
  progress: Progress;
}

export interface BareRender {
  /** `Renderer.render` called directly, one at a time, on the bench's titles. */
  engine: LatencySummary;
  /** sharp's default-settings WebP encode (q80, effort 4) of the same composed pixels. */
  defaultWebp: LatencySummary;
}

export interface ServerRun {
  server: ServerKind;
  loads: LoadResult[];
}

export interface RssSample {
  requests: number;
  rssMb: number;
}

export interface ServiceBenchReport {
  options: Omit<ServiceBenchOptions, 'progress'>;
  bare: BareRender;
  servers: ServerRun[];
  rss: RssSample[];
  /** Requests of the RSS run that were not answered 2xx. */
  rssFailures: number;
  /** Spawn to ready after `startupEvents` events, without and with the snapshot; absent when not run. */
  startup?: StartupMeasurement;
}

const RENDER_SERVER = fileURLToPath(new URL('./render-server.js', import.meta.url));

async function measureBare(count: number, progress: Progress): Promise<BareRender> {
  const renderer = new Renderer();
  const engine: number[] = [];
  const defaultWebp: number[] = [];
  const bar = progress.start('bare engine', count);
  for (let i = -3; i < count; i++) {
    const job = jobFromBody(JSON.parse(generateBody(Math.max(i, 0))) as { title: string }, i);
    const started = performance.now();
    await renderer.render(job, {});
    const rendered = performance.now();
    const { canvas } = await renderer.compose(job, {});
    const raw = { width: canvas.width, height: canvas.height, channels: 3 as const };
    const encodeStarted = performance.now();
    await sharp(canvas.data, { raw }).webp().toBuffer();
    if (i < 0) continue;
    engine.push(rendered - started);
    defaultWebp.push(performance.now() - encodeStarted);
    bar.update(i + 1);
  }
  bar.stop();
  return { engine: summarize(engine), defaultWebp: summarize(defaultWebp) };
}

interface RunningServer {
  url: string;
  keys: KeyRing;
  pid: number | undefined;
  stop(): Promise<void>;
}

async function startRenderServer(kind: 'inline' | 'pool'): Promise<RunningServer> {
  const child = spawn(process.execPath, [RENDER_SERVER, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`render server exited with ${code}`)));
  });
  const { port } = JSON.parse(first) as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    // The bare server ignores keys; the ring only keeps the request code shared with the service.
    keys: new KeyRing(['none']),
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb[1]) / 1024;
}

async function loadRuns(server: RunningServer, options: ServiceBenchOptions, label: string) {
  const loads: LoadResult[] = [];
  if (options.warmup > 0) await syncUnderLoad(server.url, server.keys, 2, options.warmup);
  let sent = options.warmup;
  for (const connections of options.connections) {
    const amount = Math.max(options.minRequests, connections * options.requestsPerConnection);
    options.progress.note(`${label}: ${amount} sync requests over ${connections} connection(s)`);
    loads.push(await syncUnderLoad(server.url, server.keys, connections, amount));
    sent += amount;
  }
  return { loads, sent };
}

/** Business accounts enough for every request to the service: 1,000 sd renders each. */
function accountsNeeded(options: ServiceBenchOptions): number {
  const total = Math.max(...options.rssAt, 0) + options.warmup + 16 * options.requestsPerConnection;
  return Math.max(16, Math.ceil(total / 900));
}

/**
 * The service against the engine in one run: the bare engine in-process, then the render-only HTTP
 * server (inline and with a worker pool) and the embedded service, each at every connection count,
 * then the embedded service kept under load until its RSS is read at each of `rssAt` requests.
 */
export async function runServiceBench(options: ServiceBenchOptions): Promise<ServiceBenchReport> {
  const { progress } = options;
  const bare = await measureBare(options.bareRenders, progress);
  const servers: ServerRun[] = [];
  for (const kind of ['inline', 'pool'] as const) {
    const server = await startRenderServer(kind);
    try {
      servers.push({ server: `render-${kind}`, ...(await loadRuns(server, options, `render-${kind}`)) });
    } finally {
      await server.stop();
    }
  }

  progress.note('starting embedded mode (services/embedded/dist/main.js)');
  const target = await startEmbedded();
  const rss: RssSample[] = [];
  let rssFailures = 0;
  try {
    const keys = new KeyRing(await createAccounts(target, accountsNeeded(options)));
    const server: RunningServer = { url: target.url, keys, pid: target.pid, stop: () => target.stop() };
    const run = await loadRuns(server, options, 'embedded');
    servers.push({ server: 'embedded', loads: run.loads });
    let sent = run.sent;
    for (const at of options.rssAt) {
      if (at > sent) {
        progress.note(`embedded: ${at - sent} more requests over 4 connections, then its RSS`);
        const load = await syncUnderLoad(target.url, keys, 4, at - sent);
        rssFailures += load.failures;
        sent = at;
      }
      rss.push({ requests: sent, rssMb: await rssMb(target.pid!) });
    }
  } finally {
    await target.stop();
  }
  // Last, with the service stopped: the start-up rows have the machine to themselves.
  const startup =
    options.startupEvents > 0
      ? await measureStartup({ events: options.startupEvents, accounts: options.startupAccounts, progress })
      : undefined;
  const { progress: _progress, ...settings } = options;
  return { options: settings, bare, servers, rss, rssFailures, startup };
}
