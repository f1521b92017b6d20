import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KeyRing, syncUnderLoad, TITLES, type LoadResult } from '../cluster/latency.js';
import type { Progress } from '../cluster/progress.js';
import { summarize, type LatencySummary } from '../cluster/stats.js';
import { createAccounts, residentMiB, startEmbedded } from '../cluster/targets.js';
import { measureStartup, type StartupMeasurement } from '../startup/startup.js';

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
  /**
   * Each connection count's load is split into this many rounds, and in every round each server (and,
   * at the first count, the bare engine) takes its turn: load from other processes on a shared machine
   * then hits all of them alike instead of whichever ran while it lasted.
   */
  rounds: number;
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

/** The embedded service's RSS over the last stretch of requests before a count, read every `RSS_EVERY_MS`. */
export interface RssSample {
  /** Requests sent when the stretch ended. */
  requests: number;
  /** Requests of the stretch the reads were taken under. */
  stretch: number;
  /** Median of the reads. */
  rssMb: number;
  minMb: number;
  maxMb: number;
  reads: number;
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

/**
 * RSS is read under load over the last `RSS_STRETCH` requests before each count, not once after it:
 * a single read swings by tens of MB with where it falls between two full collections.
 */
const RSS_STRETCH = 1_000;
/** A count already passed by the load runs gets a stretch of this many more requests. */
const RSS_MIN_STRETCH = 200;
const RSS_EVERY_MS = 500;

/** Reads a process's RSS every `everyMs` until stopped; `stop` answers the reads. */
function readResidentEvery(pid: number, everyMs: number): { stop(): Promise<number[]> } {
  const reads: Promise<number>[] = [];
  const timer = setInterval(() => reads.push(residentMiB(pid)), everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Promise.all(reads);
    },
  };
}

const RENDER_SERVER = fileURLToPath(new URL('./render-server.js', import.meta.url));
const BARE_ENGINE = fileURLToPath(new URL('./bare-engine.js', import.meta.url));

/** The bare engine, in a child process of its own (`bare-engine.ts`). */
class BareEngine {
  private readonly engine: number[] = [];
  private readonly defaultWebp: number[] = [];
  private readonly child = spawn(process.execPath, [BARE_ENGINE], { stdio: ['pipe', 'pipe', 'inherit'] });
  private readonly replies = createInterface({ input: this.child.stdout! })[Symbol.asyncIterator]();

  async warmUp(): Promise<void> {
    await this.renders(3);
  }

  async measure(count: number): Promise<void> {
    for (const { engineMs, defaultWebpMs } of await this.renders(count)) {
      this.engine.push(engineMs);
      this.defaultWebp.push(defaultWebpMs);
    }
  }

  summary(): BareRender {
    return { engine: summarize(this.engine), defaultWebp: summarize(this.defaultWebp) };
  }

  async stop(): Promise<void> {
    this.child.stdin!.end();
    if (this.child.exitCode === null) await new Promise((resolve) => this.child.once('exit', resolve));
  }

  private async renders(count: number): Promise<{ engineMs: number; defaultWebpMs: number }[]> {
    this.child.stdin!.write(`${count}\n`);
    const reply = await this.replies.next();
    if (reply.done) throw new Error('the bare engine process exited');
    return JSON.parse(reply.value) as { engineMs: number; defaultWebpMs: number }[];
  }
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

const wholeTitleCycles = (n: number) => Math.ceil(n / TITLES.length) * TITLES.length;

/** One server's load at one connection count, from its rounds: requests/s over all of them, median percentiles. */
function combineRounds(connections: number, rounds: LoadResult[]): LoadResult {
  const median = (pick: (r: LoadResult) => number) => summarize(rounds.map(pick)).p50;
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const seconds = rounds.reduce((sum, r) => sum + r.requests / Math.max(r.requestsPerSecond, 1e-9), 0);
  return {
    connections,
    requests,
    requestsPerSecond: seconds > 0 ? requests / seconds : 0,
    p50: median((r) => r.p50),
    p90: median((r) => r.p90),
    p99: median((r) => r.p99),
    failures: rounds.reduce((sum, r) => sum + r.failures, 0),
  };
}

/**
 * Every connection count in rounds; in each round the servers take turns (their order rotating) and,
 * at the first count, the bare engine renders its share between them.
 */
async function interleavedLoads(
  servers: { kind: ServerKind; server: RunningServer }[],
  bare: BareEngine,
  options: ServiceBenchOptions,
): Promise<{ runs: ServerRun[]; sent: number }> {
  const rounds = Math.max(1, options.rounds);
  const results = new Map(servers.map(({ kind }) => [kind, [] as LoadResult[]]));
  let sent = 0;
  for (const [c, connections] of options.connections.entries()) {
    const amount = Math.max(options.minRequests, connections * options.requestsPerConnection);
    // Whole cycles of the titles in every turn: their render times differ by up to 3x, so each turn (and
    // the bare engine's share) must draw the same mix for the medians to compare.
    const perRound = wholeTitleCycles(Math.max(connections, Math.ceil(amount / rounds)));
    const bar = options.progress.start(`${connections} connection(s): ${rounds} rounds`, rounds);
    const byServer = new Map(servers.map(({ kind }) => [kind, [] as LoadResult[]]));
    for (let round = 0; round < rounds; round++) {
      // The same bodies as a server's turn, in the same order: which backgrounds the engine's cache
      // holds depends on the sequence, and a render that draws one takes 42 ms against 24.
      if (c === 0) await bare.measure(perRound);
      for (let i = 0; i < servers.length; i++) {
        const { kind, server } = servers[(round + i) % servers.length]!;
        byServer.get(kind)!.push(await syncUnderLoad(server.url, server.keys, connections, perRound));
      }
      bar.update(round + 1);
    }
    bar.stop();
    for (const [kind, loads] of byServer) results.get(kind)!.push(combineRounds(connections, loads));
    sent += perRound * rounds;
  }
  return { runs: [...results].map(([server, loads]) => ({ server, loads })), sent };
}

/** Business accounts enough for every request to the service: 1,000 sd renders each. */
function accountsNeeded(options: ServiceBenchOptions): number {
  const loads = options.connections.reduce(
    (sum, c) => sum + Math.max(options.minRequests, c * options.requestsPerConnection) + c * options.rounds,
    0,
  );
  // A count the load runs have already passed still gets a stretch of its own for its RSS reads.
  const rssStretches = options.rssAt.length * RSS_MIN_STRETCH;
  const total = Math.max(...options.rssAt, 0) + rssStretches + options.warmup + loads;
  return Math.max(16, Math.ceil(total / 900));
}

/**
 * The service against the engine in one run: the render-only HTTP servers (inline and with a worker
 * pool) and the embedded service started side by side, then every connection count in rounds in which
 * each takes its turn (with the bare engine, in a process of its own, at the first count), then the embedded service
 * kept under load until its RSS is read at each of `rssAt` requests, then the start-up rows.
 */
export async function runServiceBench(options: ServiceBenchOptions): Promise<ServiceBenchReport> {
  const { progress } = options;
  const bare = new BareEngine();
  const started: { kind: ServerKind; server: RunningServer }[] = [];
  const rss: RssSample[] = [];
  let rssFailures = 0;
  let servers: ServerRun[];
  try {
    await bare.warmUp();
    for (const kind of ['inline', 'pool'] as const) {
      started.push({ kind: `render-${kind}`, server: await startRenderServer(kind) });
    }
    progress.note('starting embedded mode (services/embedded/dist/main.js)');
    const target = await startEmbedded();
    const keys = new KeyRing(await createAccounts(target, accountsNeeded(options)));
    const embedded: RunningServer = {
      url: target.url,
      keys,
      pid: target.processes().embedded,
      stop: () => target.stop(),
    };
    started.push({ kind: 'embedded', server: embedded });
    for (const { server } of started) {
      if (options.warmup > 0) await syncUnderLoad(server.url, server.keys, 2, options.warmup);
    }
    const run = await interleavedLoads(started, bare, options);
    servers = run.runs;
    let sent = options.warmup + run.sent;
    const loadEmbedded = async (requests: number) => {
      rssFailures += (await syncUnderLoad(embedded.url, keys, 4, requests)).failures;
      sent += requests;
    };
    for (const at of options.rssAt) {
      const unread = at - sent - RSS_STRETCH;
      if (unread > 0) {
        progress.note(`embedded: ${unread} more requests over 4 connections`);
        await loadEmbedded(unread);
      }
      const stretch = Math.max(at - sent, RSS_MIN_STRETCH);
      progress.note(
        `embedded: ${stretch} more requests over 4 connections, its RSS read every ${RSS_EVERY_MS} ms`,
      );
      const reader = readResidentEvery(embedded.pid!, RSS_EVERY_MS);
      await loadEmbedded(stretch);
      const reads = (await reader.stop()).sort((a, b) => a - b);
      if (reads.length === 0) reads.push(await residentMiB(embedded.pid!));
      rss.push({
        requests: sent,
        stretch,
        rssMb: reads[Math.floor(reads.length / 2)]!,
        minMb: reads[0]!,
        maxMb: reads.at(-1)!,
        reads: reads.length,
      });
    }
  } finally {
    await bare.stop();
    for (const { server } of started) await server.stop();
  }
  // Last, with every server stopped: the start-up rows have the machine to themselves.
  const startup =
    options.startupEvents > 0
      ? await measureStartup({ events: options.startupEvents, accounts: options.startupAccounts, progress })
      : undefined;
  const { progress: _progress, ...settings } = options;
  return { options: settings, bare: bare.summary(), servers, rss, rssFailures, startup };
}
