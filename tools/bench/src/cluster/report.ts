import type { ClusterBenchReport, ModeReport } from './bench.js';
import { formatFenceReport } from './fence.js';
import { busyCores, requestsPerSecond, totalMsPerRequest, totalMsPerSecond } from './cpu.js';
import { WARMUP_CONNECTIONS } from './latency.js';
import type { ReplayMeasurement } from './replay.js';
import { formatStartup, startupChecks } from '../startup/report.js';

interface Row {
  label: string;
  embedded: number | null;
  cluster: number | null;
  /** Digits after the point. */
  digits: number;
}

const WIDTHS = [52, 12, 12, 17];
export const COLUMNS = ['figure', 'embedded', 'cluster', 'cluster/embedded'] as const;

function line(cells: string[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(WIDTHS[i]!) : cell.padStart(WIDTHS[i]!))).join(' ');
}

function number(value: number | null, digits: number): string {
  if (value === null) return '-';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function ratio(row: Row): string {
  if (row.embedded === null || row.cluster === null || row.embedded === 0) return '-';
  return `${(row.cluster / row.embedded).toFixed(2)}x`;
}

export function eventsPerSecond(events: number, ms: number): number {
  return events / (ms / 1000);
}

/** Every figure of the run as rows, embedded beside cluster; a mode or log not measured shows `-`. */
export function reportRows(report: ClusterBenchReport): Row[] {
  const mode = (name: ModeReport['mode']) => report.modes.find((m) => m.mode === name);
  const log = (name: ReplayMeasurement['log']) => report.replay.find((r) => r.log === name);
  const modeRow = (label: string, pick: (m: ModeReport) => number, digits = 1): Row => ({
    label,
    embedded: mode('embedded') ? pick(mode('embedded')!) : null,
    cluster: mode('cluster') ? pick(mode('cluster')!) : null,
    digits,
  });
  const logRow = (label: string, pick: (r: ReplayMeasurement) => number): Row => ({
    label,
    embedded: log('file') ? pick(log('file')!) : null,
    cluster: log('kafka') ? pick(log('kafka')!) : null,
    digits: 0,
  });
  const loadRows = report.options.connections.flatMap((c, i) => [
    modeRow(`sync throughput, ${c} connections (requests/s)`, (m) => m.load[i]!.requestsPerSecond),
    modeRow(`sync latency p50, ${c} connections (ms)`, (m) => m.load[i]!.p50),
    modeRow(`sync latency p90, ${c} connections (ms)`, (m) => m.load[i]!.p90),
    modeRow(`sync latency p99, ${c} connections (ms)`, (m) => m.load[i]!.p99),
  ]);
  const kafka = log('kafka');
  return [
    modeRow('sync latency p50, one at a time (ms)', (m) => m.sync.p50),
    modeRow('sync latency p90, one at a time (ms)', (m) => m.sync.p90),
    modeRow('sync latency p99, one at a time (ms)', (m) => m.sync.p99),
    ...loadRows,
    modeRow('async request to webhook p50 (ms)', (m) => m.async.p50),
    modeRow('async request to webhook p90 (ms)', (m) => m.async.p90),
    modeRow('async request to webhook p99 (ms)', (m) => m.async.p99),
    modeRow(
      'largest service process RSS after the run (MiB)',
      (m) => Math.max(...Object.values(m.rssMiB)),
      0,
    ),
    logRow('ledger append (events/s)', (r) => eventsPerSecond(r.events, r.appendMs)),
    logRow('ledger replay: read + fold (events/s)', (r) => eventsPerSecond(r.events, r.replayMs)),
    logRow('ledger read alone (events/s)', (r) => eventsPerSecond(r.events, r.replayMs - r.foldMs)),
    {
      label: 'bare kafkajs consumer, same topic (events/s)',
      embedded: null,
      cluster: kafka?.rawConsumeMs ? eventsPerSecond(kafka.events, kafka.rawConsumeMs) : null,
      digits: 0,
    },
  ];
}

export interface TargetCheck {
  target: string;
  measured: string;
  pass: boolean;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const perSecond = (value: number) => `${Math.round(value).toLocaleString('en-US')} ev/s`;

/** The issue's target for the ledger replay from embedded mode's file log. */
export function fileReplayCheck(file: ReplayMeasurement): TargetCheck {
  const rate = eventsPerSecond(file.events, file.replayMs);
  return {
    target: 'ledger replay from the file log >= 500,000 ev/s',
    measured: perSecond(rate),
    pass: rate >= 500_000,
  };
}

/**
 * The issue's targets for cluster mode and the ledger replay, each with what this run measured; a
 * target whose figures were not measured in the run is left out.
 */
export function targetChecks(report: ClusterBenchReport): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const embedded = report.modes.find((m) => m.mode === 'embedded');
  const cluster = report.modes.find((m) => m.mode === 'cluster');
  if (embedded && cluster) {
    const within = (what: string, e: number, c: number, margin: number) =>
      checks.push({
        target: `cluster ${what} p50 <= embedded + ${margin} ms`,
        measured: `${ms(c)} vs ${ms(e)} (+${(c - e).toFixed(1)} ms)`,
        pass: c <= e + margin,
      });
    within('sync, one at a time,', embedded.sync.p50, cluster.sync.p50, 15);
    report.options.connections.forEach((c, i) => {
      const e = embedded.load[i]!;
      const k = cluster.load[i]!;
      const ratio = k.requestsPerSecond / e.requestsPerSecond;
      checks.push({
        target: `cluster throughput at ${c} connections >= 0.8x embedded`,
        measured: `${k.requestsPerSecond.toFixed(1)} vs ${e.requestsPerSecond.toFixed(1)} req/s (${ratio.toFixed(2)}x)`,
        pass: ratio >= 0.8,
      });
      within(`sync at ${c} connections`, e.p50, k.p50, 15);
    });
    within('async request to webhook', embedded.async.p50, cluster.async.p50, 25);
  }
  if (cluster) {
    for (const [service, rss] of Object.entries(cluster.rssMiB)) {
      checks.push({
        target: `cluster ${service} process RSS <= 250 MB (238 MiB) after the run`,
        measured: `${rss.toFixed(0)} MiB`,
        pass: rss * 2 ** 20 <= 250e6,
      });
    }
  }
  const file = report.replay.find((r) => r.log === 'file');
  if (file) checks.push(fileReplayCheck(file));
  const kafka = report.replay.find((r) => r.log === 'kafka');
  if (kafka?.rawConsumeMs) {
    const rate = eventsPerSecond(kafka.events, kafka.replayMs);
    const raw = eventsPerSecond(kafka.events, kafka.rawConsumeMs);
    // The bare consumer decodes the same batches on one thread and folds nothing: slower than the
    // replay, its reads were disturbed (a slow group join, a busy broker) and the ratio says nothing.
    const credible = rate <= raw;
    checks.push({
      target: 'ledger replay from Kafka >= 0.7x a bare kafkajs consumer',
      measured:
        `${perSecond(rate)} vs ${perSecond(raw)} (${(rate / raw).toFixed(2)}x)` +
        (credible ? '' : '; the bare consumer was slower than the replay: not a baseline'),
      pass: credible && rate >= 0.7 * raw,
    });
  }
  for (const startup of report.startup ?? []) checks.push(...startupChecks(startup));
  return checks;
}

/** Each bare kafkajs read of a replay, in order, as rates: a disturbed one stands out. */
function bareReads(replay: ReplayMeasurement): string {
  const runs = replay.rawConsumeRunsMs;
  return runs ? ` (${runs.map((ms) => perSecond(eventsPerSecond(replay.events, ms))).join(', ')})` : '';
}

/**
 * Where each mode's CPU went per request, one at a time and in its first load run, and the throughput
 * that bounds on this machine: with every core busy, a mode answers at most cores × 1,000 ms / its
 * CPU per request.
 */
export function formatCpu(report: ClusterBenchReport): string[] {
  const measured = report.modes.filter((m) => m.cpu);
  const oneAtATime = report.modes.filter((m) => m.cpuOneAtATime);
  const idle = report.modes.filter((m) => m.idle);
  if (measured.length === 0 && oneAtATime.length === 0 && idle.length === 0) return [];
  const lines = [
    '',
    "CPU per sync request (ms of user + system time from /proc, every thread; the bench's own client not counted):",
  ];
  if (oneAtATime.length > 0) {
    const parts = oneAtATime.map((m) => {
      const cpu = m.cpuOneAtATime!;
      return `${m.mode} ${totalMsPerRequest(cpu).toFixed(1)} in all, ${busyCores(cpu).toFixed(2)} of ${cpu.cores} cores busy on average`;
    });
    lines.push(`  one at a time: ${parts.join('; ')}`);
    // Each request's work, and what trails it, shares the cores with the next: in a closed loop the
    // mean request cannot be shorter than its CPU spread over every core.
    const floors = oneAtATime.map(
      (m) => `${(totalMsPerRequest(m.cpuOneAtATime!) / m.cpuOneAtATime!.cores).toFixed(1)} ms ${m.mode}`,
    );
    lines.push(
      `  one after another, a request cannot average under its CPU over the cores: ${floors.join(', ')}`,
    );
  }
  lines.push(...formatIdle(idle));
  if (measured.length === 0) return lines;
  const { connections, cores } = measured[0]!.cpu!;
  lines.push(
    `  at ${connections} connections:`,
    ...measured.map((m) => {
      const cpu = m.cpu!;
      return `  ${m.mode.padEnd(9)} ${totalMsPerRequest(cpu).toFixed(1).padStart(6)} in all: ${byProcess(cpu.ms, cpu.servers)}`;
    }),
    `  on ${cores} cores, at most ` +
      measured
        .map((m) => `${((cores * 1000) / totalMsPerRequest(m.cpu!)).toFixed(1)} requests/s ${m.mode}`)
        .join(', '),
  );
  const embedded = report.modes.find((m) => m.mode === 'embedded');
  const cluster = report.modes.find((m) => m.mode === 'cluster');
  if (embedded?.cpu && cluster?.cpu && cluster.cpu.servers.length > 0) {
    const wanted = 0.8 * embedded.load[0]!.requestsPerSecond;
    lines.push(
      `  0.8x embedded's ${embedded.load[0]!.requestsPerSecond.toFixed(1)} requests/s leaves the cluster ` +
        `${((cores * 1000) / wanted).toFixed(1)} ms of CPU per request in all; its servers took ${serversMs(cluster.cpu.ms, cluster.cpu.servers).toFixed(1)}`,
    );
  }
  return lines;
}

/** What the servers among the processes took of `ms`. */
function serversMs(ms: Record<string, number>, servers: readonly string[]): number {
  return servers.reduce((sum, name) => sum + ms[name]!, 0);
}

/** ms by process, largest first, and the servers' share when there are servers among them. */
function byProcess(ms: Record<string, number>, servers: readonly string[]): string {
  const parts = Object.entries(ms)
    .sort(([, a], [, b]) => b - a)
    .map(([name, value]) => `${name} ${value.toFixed(1)}`)
    .join(', ');
  return servers.length > 0 ? `${parts}; servers ${serversMs(ms, servers).toFixed(1)}` : parts;
}

/** Each mode's standing CPU, and how much of a request one at a time it is at the rate they came. */
function formatIdle(modes: ModeReport[]): string[] {
  if (modes.length === 0) return [];
  const seconds = (modes[0]!.idle!.wallMs / 1000).toFixed(1);
  const parts = modes.map(({ mode, idle }) => {
    const { msPerSecond, servers } = idle!;
    const each = Object.keys(msPerSecond).length > 1 ? ` (${byProcess(msPerSecond, servers)})` : '';
    return `${mode} ${totalMsPerSecond(idle!).toFixed(1)}${each}`;
  });
  const lines = [`  with no requests (${seconds} s after the warm-up), ms per second: ${parts.join('; ')}`];
  // Standing CPU accrues per second, so it weighs on each request in proportion to how few come.
  const shares = modes
    .filter(({ cpuOneAtATime }) => cpuOneAtATime && requestsPerSecond(cpuOneAtATime) > 0)
    .map(({ mode, idle, cpuOneAtATime }) => {
      const rate = requestsPerSecond(cpuOneAtATime!);
      return `${mode} ${(totalMsPerSecond(idle!) / rate).toFixed(1)} of ${totalMsPerRequest(cpuOneAtATime!).toFixed(1)} ms (${rate.toFixed(1)} requests/s)`;
    });
  if (shares.length > 0)
    lines.push(`  of the CPU per request one at a time, that much is standing: ${shares.join(', ')}`);
  return lines;
}

/** The report as one plain-text table, with what was measured above it and the checks below. */
export function formatClusterReport(report: ClusterBenchReport): string {
  const o = report.options;
  const header = [
    `cluster benchmark: ${o.modes.join(' and ')} mode in one run`,
    `requests: youtube sd webp with a title; per mode ${o.warmupLoad} sync warm-up over ` +
      `${WARMUP_CONNECTIONS} connections and ${o.warmup} sync + ${o.warmup} async one at a time, ` +
      `${o.sequential} sync one at a time, ${o.loadRequests} sync over each of ` +
      `${o.connections.join(' and ')} connections ` +
      `(autocannon), ${o.asyncJobs} async timed from request to webhook received`,
    `ledger: ${o.events.toLocaleString('en-US')} billing events of ${o.accounts.toLocaleString('en-US')} ` +
      'accounts appended, then read from the start and folded into ledgers; embedded = file log ' +
      '(fsync always), cluster = Kafka (one partition, acks all)',
    '',
  ];
  const rows = reportRows(report).map((row) =>
    line([row.label, number(row.embedded, row.digits), number(row.cluster, row.digits), ratio(row)]),
  );
  const targets = targetChecks(report).map(
    (check) => `${check.pass ? 'PASS' : 'FAIL'}  ${check.target}: ${check.measured}`,
  );
  const checks = [
    ...report.modes.flatMap((m) =>
      m.load.map(
        (l) =>
          `${m.mode}: ${l.requests} sync requests over ${l.connections} connections, ${l.failures} failed`,
      ),
    ),
    ...report.replay.map(
      (r) =>
        `${r.log === 'file' ? 'file log' : 'kafka'}: ${r.events.toLocaleString('en-US')} events replayed ` +
        `(${r.facts.toLocaleString('en-US')} facts folded, the commands skipped undecoded) into ` +
        `${r.accounts.toLocaleString('en-US')} ledgers, ${r.ledgersMatch ? 'equal to' : 'DIFFERENT FROM'} billing's; ` +
        `${r.rounds === 1 ? 'one replay' : `medians of ${r.rounds} replays`}` +
        `${r.rawConsumeMs ? ', the bare consumer after each' : ''}` +
        bareReads(r),
    ),
  ];
  const fence = report.fence ? ['', ...formatFenceReport(report.fence)] : [];
  const startup = (report.startup ?? []).flatMap((s) => ['', ...formatStartup(s)]);
  const hops = report.modes.flatMap((m) =>
    m.hops
      ? [
          '',
          `${m.mode}: where a sync request's time goes (one at a time; median per step, from Kafka record timestamps):`,
          ...m.hops.map((h) => `  ${h.p50.toFixed(0).padStart(6)} ms  ${h.step}`),
        ]
      : [],
  );
  return [
    ...header,
    line([...COLUMNS]),
    ...rows,
    ...hops,
    ...formatCpu(report),
    ...startup,
    ...fence,
    '',
    ...checks,
    ...(targets.length > 0 ? ['', 'targets:', ...targets] : []),
  ].join('\n');
}
