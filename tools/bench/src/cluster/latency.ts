import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { summarize, type LatencySummary } from './stats.js';
import type { Progress } from './progress.js';

/** What every measured request asks for: a youtube sd WebP with a title only. */
export const REQUEST = { format: 'youtube', model: 'sd', outputFormat: 'webp' } as const;
export const TITLES = [
  'I Tried Every AI Thumbnail Tool',
  'Weekly news: what changed this week',
  'Sourdough at home in 24 hours',
  'Ten travel hacks for long flights',
  'Budget mechanical keyboards, ranked',
  'A 20 minute morning yoga routine',
  'Why this startup failed after 40 million',
  'Speedrunning the hardest level',
];

/** Hands out API keys in turn, so no account runs out of credits during a long run. */
export class KeyRing {
  private next = 0;
  constructor(private readonly keys: readonly string[]) {
    if (keys.length === 0) throw new RangeError('no API keys');
  }
  take(): string {
    return this.keys[this.next++ % this.keys.length]!;
  }
}

/** The body of the bench's `n`th generate request: the titles take turns. */
export function generateBody(n: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...REQUEST, title: `${TITLES[n % TITLES.length]} #${n}`, ...extra });
}

async function post(url: string, key: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/v1/generate`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** A sync request as the hop profile needs it: when it was sent, how long it took, what it made. */
export interface AnsweredRequest {
  /** Epoch milliseconds, the clock Kafka record timestamps use. */
  sentAt: number;
  ms: number;
  generationId: string;
}

/** Sync requests one after another, each timed from send to the whole body read. */
export async function sequentialSync(
  url: string,
  keys: KeyRing,
  count: number,
  progress: Progress,
  label: string,
  answered?: AnsweredRequest[],
): Promise<LatencySummary> {
  const bar = progress.start(label, count);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const sentAt = Date.now();
    const started = performance.now();
    const res = await post(url, keys.take(), generateBody(i));
    const ms = performance.now() - started;
    samples.push(ms);
    if (res.status !== 200) throw new Error(`sync request answered ${res.status}: ${res.text.slice(0, 200)}`);
    if (answered) {
      const { generationId } = JSON.parse(res.text) as { generationId: string };
      answered.push({ sentAt, ms, generationId });
    }
    bar.update(i + 1);
  }
  bar.stop();
  return summarize(samples);
}

export interface LoadResult {
  connections: number;
  requests: number;
  /** 2xx responses per second over the run. */
  requestsPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  /** Responses other than 2xx and connection errors: a correct run has none. */
  failures: number;
}

/** The load warm-up's connections (`ClusterBenchOptions.warmupLoad`): what the measured load runs start with. */
export const WARMUP_CONNECTIONS = 4;

/**
 * `amount` untimed sync requests over `WARMUP_CONNECTIONS`, so that every process is measured with its
 * request path compiled: Kafka's JVM takes hundreds of requests to get there.
 */
export async function warmUpUnderLoad(
  url: string,
  keys: KeyRing,
  amount: number,
  progress: Progress,
  label: string,
): Promise<void> {
  if (amount <= 0) return;
  progress.note(`${label}: ${amount} warm-up sync requests over ${WARMUP_CONNECTIONS} connections`);
  await syncUnderLoad(url, keys, WARMUP_CONNECTIONS, amount);
}

/** `amount` sync requests from `connections` concurrent connections (autocannon), titles and keys in turn. */
export async function syncUnderLoad(
  url: string,
  keys: KeyRing,
  connections: number,
  amount: number,
): Promise<LoadResult> {
  let n = 0;
  let lastResponse = 0;
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}/v1/generate`,
        connections,
        amount,
        timeout: 120,
        requests: [
          {
            method: 'POST',
            setupRequest: (request) => ({
              ...request,
              headers: { 'content-type': 'application/json', 'x-api-key': keys.take() },
              body: generateBody(n++),
            }),
          },
        ],
      },
      (error, done) => (error ? reject(error as Error) : resolve(done)),
    );
    instance.on('response', () => {
      lastResponse = performance.now();
    });
  });
  return {
    connections,
    requests: result['2xx'],
    // From the first request to the last response, timed here: autocannon's own duration ends on its
    // once-a-second tick, which halves the rate of a run that lasts a little over a second.
    requestsPerSecond: result['2xx'] / ((lastResponse - started) / 1000),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors,
  };
}

interface Arrival {
  at: number;
  event: string;
}

/** How long the bench waits for one webhook before it gives up on the run. */
const WEBHOOK_WAIT_MS = 120_000;

/** A loopback webhook receiver that tells when each job's delivery arrived. */
async function startReceiver() {
  const arrivals = new Map<string, Arrival>();
  const waiters = new Map<string, (arrival: Arrival) => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200).end('ok');
      const { jobId, event } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        jobId: string;
        event: string;
      };
      arrivals.set(jobId, { at, event });
      waiters.get(jobId)?.({ at, event });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    /** The job's webhook, even if it came before the 202 was read. */
    arrival: (jobId: string) =>
      new Promise<Arrival>((resolve, reject) => {
        const arrived = arrivals.get(jobId);
        if (arrived) return resolve(arrived);
        const timer = setTimeout(
          () => reject(new Error(`no webhook for ${jobId} within ${WEBHOOK_WAIT_MS} ms`)),
          WEBHOOK_WAIT_MS,
        );
        waiters.set(jobId, (arrival) => {
          clearTimeout(timer);
          resolve(arrival);
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Async requests one at a time, each timed from send until its webhook arrived. */
export async function asyncEndToEnd(
  url: string,
  keys: KeyRing,
  count: number,
  progress: Progress,
  label: string,
): Promise<LatencySummary> {
  const receiver = await startReceiver();
  const bar = progress.start(label, count);
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const res = await post(url, keys.take(), generateBody(i, { webhookUrl: receiver.url }));
      if (res.status !== 202)
        throw new Error(`async request answered ${res.status}: ${res.text.slice(0, 200)}`);
      const { jobId } = JSON.parse(res.text) as { jobId: string };
      const { at, event } = await receiver.arrival(jobId);
      if (event !== 'generation.completed') throw new Error(`job ${jobId} ended with ${event}`);
      samples.push(at - started);
      bar.update(i + 1);
    }
  } finally {
    bar.stop();
    await receiver.close();
  }
  return summarize(samples);
}
