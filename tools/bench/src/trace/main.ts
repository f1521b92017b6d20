import { createAccounts, startCluster } from '../cluster/targets.js';
import { KeyRing, sequentialSync } from '../cluster/latency.js';
import { countOptions, loadNote } from '../cluster/counts.js';
import { terminalProgress } from '../cluster/progress.js';
import type { LatencySummary } from '../cluster/stats.js';
import { startSpanCollector } from './collector.js';
import { requestTimeline } from './timeline.js';

const { requests, warmup } = countOptions('bench:trace', { requests: 60, warmup: 10 });
const progress = terminalProgress();
const ROOT = 'POST /v1/generate';

/** Sync requests one at a time on a fresh local cluster started with `env`; when each measured one began. */
async function run(
  label: string,
  env: Record<string, string>,
): Promise<{ latency: LatencySummary; fromMs: number }> {
  progress.note(`starting a local cluster ${label}`);
  const target = await startCluster(env);
  try {
    const keys = new KeyRing(await createAccounts(target, 1));
    await sequentialSync(target.url, keys, warmup, progress, `warm-up ${label}`);
    const fromMs = Date.now();
    const latency = await sequentialSync(target.url, keys, requests, progress, `sync one at a time ${label}`);
    // SIGTERM first: each process exports the spans it still holds before it exits.
    await target.stopServices();
    return { latency, fromMs };
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
const steps = requestTimeline(spans, ROOT, traced.fromMs);
const measured = steps.find((s) => s.step.endsWith(ROOT))?.requests ?? 0;
console.log(
  [
    `cluster, ${requests} sync requests one at a time (youtube sd WebP), after ${warmup} of warm-up`,
    `                      p50      p90`,
    `  without telemetry ${ms(bare.latency.p50)}  ${ms(bare.latency.p90)} ms`,
    `  with traces       ${ms(traced.latency.p50)}  ${ms(traced.latency.p90)} ms   (p50 ${(traced.latency.p50 / bare.latency.p50).toFixed(2)}x)`,
    '',
    `where a traced request's time goes: spans in at least half of the ${measured} traces, medians (ms after the request arrived)`,
    `    start  duration  span`,
    ...steps.map((s) => `  ${ms(s.startMs)}  ${ms(s.durationMs)}   ${s.step.replace(/^thumbforge-/, '')}`),
    '',
    `${spans.length.toLocaleString('en-US')} spans collected; ${loadNote()}`,
  ].join('\n'),
);
if (measured < requests) {
  console.error(`only ${measured} of ${requests} requests came back as whole traces`);
  process.exit(1);
}
