import { accountsCovering, createAccounts, startCluster } from '../cluster/targets.js';
import {
  asyncEndToEnd,
  KeyRing,
  sequentialSync,
  warmUpUnderLoad,
  WARMUP_CONNECTIONS,
} from '../cluster/latency.js';
import { countOptions, loadNote } from '../cluster/counts.js';
import { terminalProgress } from '../cluster/progress.js';
import type { LatencySummary } from '../cluster/stats.js';
import { startSpanCollector } from './collector.js';
import { requestTimeline, type TimelineStep } from './timeline.js';

const options = countOptions('bench:trace', { requests: 60, warmup: 10, 'warmup-load': 600 });
const { requests, warmup } = options;
const warmupLoad = options['warmup-load'];
const progress = terminalProgress();
const ROOT = 'POST /v1/generate';

interface Run {
  sync: LatencySummary;
  /** Async requests, each until its webhook arrived. */
  async: LatencySummary;
  /** When the measured sync requests began and ended, and when the measured async ones began. */
  syncFromMs: number;
  syncUntilMs: number;
  asyncFromMs: number;
}

/**
 * On a fresh local cluster started with `env`, once a load has warmed its processes up (Kafka's JVM
 * compiles its request path over hundreds of requests): sync requests one at a time, then async ones
 * one at a time, each to a local receiver, every kind after its own warm-up.
 */
async function run(label: string, env: Record<string, string>): Promise<Run> {
  progress.note(`starting a local cluster ${label}`);
  const target = await startCluster(env);
  try {
    const sent = warmupLoad + 2 * (warmup + requests);
    const keys = new KeyRing(await createAccounts(target, accountsCovering(sent, WARMUP_CONNECTIONS)));
    await warmUpUnderLoad(target.url, keys, warmupLoad, progress, label);
    await sequentialSync(target.url, keys, warmup, progress, `warm-up ${label}`);
    const syncFromMs = Date.now();
    const sync = await sequentialSync(target.url, keys, requests, progress, `sync one at a time ${label}`);
    const syncUntilMs = Date.now();
    await asyncEndToEnd(target.url, keys, warmup, progress, `async warm-up ${label}`);
    const asyncFromMs = Date.now();
    const async = await asyncEndToEnd(target.url, keys, requests, progress, `async one at a time ${label}`);
    // SIGTERM first: each process exports the spans it still holds before it exits.
    await target.stopServices();
    return { sync, async, syncFromMs, syncUntilMs, asyncFromMs };
  } finally {
    await target.stop();
  }
}

const bare = await run('without telemetry', {});
const collector = await startSpanCollector();
const traced = await run('with traces', {
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.endpoint,
}).finally(() => collector.close());
const { spans } = collector;

const ms = (n: number) => n.toFixed(1).padStart(7);
/** How many measured requests came back as traces: each has the gateway's server span. */
const rootsOf = (steps: TimelineStep[]) => steps.find((s) => s.step.endsWith(ROOT))?.requests ?? 0;
const kinds = [
  {
    kind: 'sync',
    title: `${requests} sync requests one at a time (youtube sd WebP), after ${warmupLoad} + ${warmup} of warm-up`,
    bare: bare.sync,
    traced: traced.sync,
    steps: requestTimeline(spans, ROOT, traced.syncFromMs, traced.syncUntilMs),
  },
  {
    kind: 'async',
    title: `${requests} async requests one at a time, each until its webhook arrived, after ${warmupLoad} + ${warmup} of warm-up`,
    bare: bare.async,
    traced: traced.async,
    steps: requestTimeline(spans, ROOT, traced.asyncFromMs),
  },
].map((kind) => ({ ...kind, measured: rootsOf(kind.steps) }));
const lines: string[] = [];
for (const { title, bare: untraced, traced: withTraces, steps, measured } of kinds) {
  lines.push(
    `cluster, ${title}`,
    `                      p50      p90`,
    `  without telemetry ${ms(untraced.p50)}  ${ms(untraced.p90)} ms`,
    `  with traces       ${ms(withTraces.p50)}  ${ms(withTraces.p90)} ms   (p50 ${(withTraces.p50 / untraced.p50).toFixed(2)}x)`,
    '',
    `where a traced request's time goes: spans in at least half of the ${measured} traces, medians (ms after the request arrived)`,
    `    start  duration  span`,
    ...steps.map((s) => `  ${ms(s.startMs)}  ${ms(s.durationMs)}   ${s.step.replace(/^thumbforge-/, '')}`),
    '',
  );
}
console.log([...lines, `${spans.length.toLocaleString('en-US')} spans collected; ${loadNote()}`].join('\n'));
const short = kinds.filter(({ measured }) => measured < requests);
for (const { kind, measured } of short) {
  console.error(`only ${measured} of ${requests} ${kind} requests came back as whole traces`);
}
if (short.length > 0) process.exit(1);
