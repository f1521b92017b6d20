import type { LoadResult } from '../cluster/latency.js';
import { formatStartup, startupChecks } from '../startup/report.js';
import type { ServerKind, ServiceBenchReport } from './bench.js';

export const SERVER_LABELS: Record<ServerKind, string> = {
  'render-inline': 'render-only server, engine on the main thread',
  'render-pool': 'render-only server, piscina worker per core',
  embedded: 'embedded service (fsync always)',
};

/** Embedded RSS may grow this much from the first reading to the last and still count as flat. */
export const FLAT_RSS_GROWTH = 0.1;
export const TARGETS = {
  latencyVsBare: 1.15,
  throughputVsRenderOnly: 0.85,
  rssMb: 300,
} as const;

export interface TargetCheck {
  label: string;
  measured: string;
  pass: boolean;
}

function ms(value: number): string {
  return value.toFixed(1);
}

function load(report: ServiceBenchReport, server: ServerKind, connections: number): LoadResult | undefined {
  return report.servers.find((s) => s.server === server)?.loads.find((l) => l.connections === connections);
}

/** The render-only server that did best at `connections`: the service is held to the faster baseline. */
function bestRenderOnly(report: ServiceBenchReport, connections: number): LoadResult | undefined {
  const candidates = (['render-inline', 'render-pool'] as const)
    .map((server) => load(report, server, connections))
    .filter((l): l is LoadResult => l !== undefined);
  return candidates.sort((a, b) => b.requestsPerSecond - a.requestsPerSecond)[0];
}

export function serviceTargetChecks(report: ServiceBenchReport): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const single = load(report, 'embedded', 1);
  if (single) {
    const ratio = single.p50 / report.bare.engine.p50;
    checks.push({
      label: `1: embedded p50 at 1 connection <= ${TARGETS.latencyVsBare}x the bare engine`,
      measured: `${ms(single.p50)} ms / ${ms(report.bare.engine.p50)} ms = ${ratio.toFixed(2)}x`,
      pass: ratio <= TARGETS.latencyVsBare,
    });
    checks.push({
      label: "1: embedded p50 at 1 connection below sharp's default webp encode",
      measured: `${ms(single.p50)} ms vs ${ms(report.bare.defaultWebp.p50)} ms`,
      pass: single.p50 < report.bare.defaultWebp.p50,
    });
  }
  for (const connections of report.options.connections.filter((c) => c > 1)) {
    const embedded = load(report, 'embedded', connections);
    const baseline = bestRenderOnly(report, connections);
    if (!embedded || !baseline) continue;
    const ratio = embedded.requestsPerSecond / baseline.requestsPerSecond;
    checks.push({
      label: `2: embedded req/s at ${connections} connections >= ${TARGETS.throughputVsRenderOnly}x the best render-only`,
      measured: `${embedded.requestsPerSecond.toFixed(1)} / ${baseline.requestsPerSecond.toFixed(1)} = ${ratio.toFixed(2)}x`,
      pass: ratio >= TARGETS.throughputVsRenderOnly,
    });
  }
  const first = report.rss[0];
  const last = report.rss.at(-1);
  if (first && last) {
    checks.push({
      label: `4: embedded RSS after ${last.requests.toLocaleString('en-US')} requests <= ${TARGETS.rssMb} MB`,
      measured: `${last.rssMb.toFixed(0)} MB`,
      pass: last.rssMb <= TARGETS.rssMb,
    });
    if (last !== first) {
      const growth = (last.rssMb - first.rssMb) / first.rssMb;
      checks.push({
        label: `4: embedded RSS flat from ${first.requests.toLocaleString('en-US')} to ${last.requests.toLocaleString('en-US')} requests (growth <= ${FLAT_RSS_GROWTH * 100} %)`,
        measured: `${first.rssMb.toFixed(0)} -> ${last.rssMb.toFixed(0)} MB (${(growth * 100).toFixed(1)} %)`,
        pass: growth <= FLAT_RSS_GROWTH,
      });
    }
  }
  if (report.startup) {
    for (const check of startupChecks(report.startup)) {
      checks.push({ label: `5: ${check.target}`, measured: check.measured, pass: check.pass });
    }
  }
  return checks;
}

const WIDTHS = [48, 6, 9, 9, 9, 9, 14, 14];
const COLUMNS = ['server', 'conns', 'p50 ms', 'p99 ms', 'req/s', 'failed', 'p50 vs bare', 'req/s vs best'];

function row(cells: string[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(WIDTHS[i]!) : cell.padStart(WIDTHS[i]!))).join(' ');
}

/** The run as one plain-text table: latency and throughput rows, memory, start-up, then the targets. */
export function formatServiceReport(report: ServiceBenchReport): string {
  const o = report.options;
  const lines = [
    'service benchmark: the embedded service against the engine alone, in one run',
    `requests: youtube sd webp with a title (8 titles in turn); ${o.warmup} warm-up requests per server, ` +
      `then ${o.requestsPerConnection} requests per connection (at least ${o.minRequests}) at ` +
      `${o.connections.join(', ')} connection(s) with autocannon, in ${o.rounds} rounds in which the servers ` +
      `take turns (p50/p99: medians over the rounds); bare engine: in a process of its own, the requests of ` +
      `a turn at ${o.connections[0]} connection(s), one at a time, between the servers' turns`,
    '',
    `bare engine (Renderer.render, a process of its own): p50 ${ms(report.bare.engine.p50)} ms, p99 ${ms(report.bare.engine.p99)} ms`,
    `sharp's default webp (q80, effort 4) of the same pixels: p50 ${ms(report.bare.defaultWebp.p50)} ms`,
    '',
    row(COLUMNS),
  ];
  for (const { server, loads } of report.servers) {
    for (const l of loads) {
      const best = bestRenderOnly(report, l.connections);
      lines.push(
        row([
          SERVER_LABELS[server],
          String(l.connections),
          ms(l.p50),
          ms(l.p99),
          l.requestsPerSecond.toFixed(1),
          String(l.failures),
          `${(l.p50 / report.bare.engine.p50).toFixed(2)}x`,
          best ? `${(l.requestsPerSecond / best.requestsPerSecond).toFixed(2)}x` : '-',
        ]),
      );
    }
  }
  lines.push('');
  for (const sample of report.rss) {
    const from = (sample.requests - sample.stretch).toLocaleString('en-US');
    lines.push(
      `embedded RSS over requests ${from}-${sample.requests.toLocaleString('en-US')}: median ${sample.rssMb.toFixed(0)} MB of ${sample.reads} reads (${sample.minMb.toFixed(0)}-${sample.maxMb.toFixed(0)})`,
    );
  }
  if (report.rss.length > 0) lines.push(`requests of the RSS run not answered 2xx: ${report.rssFailures}`);
  if (report.startup) lines.push('', ...formatStartup(report.startup));
  else lines.push('start-up after a long history: not measured by this run (--startup-events 0)');
  lines.push('', 'targets:');
  for (const check of serviceTargetChecks(report)) {
    lines.push(`  ${check.pass ? 'PASS' : 'FAIL'}  ${check.label}: ${check.measured}`);
  }
  return lines.join('\n');
}
