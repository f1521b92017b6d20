import type { ClusterBenchReport, ModeReport } from './bench.js';
import { formatFenceReport } from './fence.js';
import type { ReplayMeasurement } from './replay.js';

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

function eventsPerSecond(events: number, ms: number): number {
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
  const c = report.options.connections;
  return [
    modeRow('sync latency p50, one at a time (ms)', (m) => m.sync.p50),
    modeRow('sync latency p90, one at a time (ms)', (m) => m.sync.p90),
    modeRow('sync latency p99, one at a time (ms)', (m) => m.sync.p99),
    modeRow(`sync throughput, ${c} connections (requests/s)`, (m) => m.load.requestsPerSecond),
    modeRow(`sync latency p50, ${c} connections (ms)`, (m) => m.load.p50),
    modeRow(`sync latency p90, ${c} connections (ms)`, (m) => m.load.p90),
    modeRow(`sync latency p99, ${c} connections (ms)`, (m) => m.load.p99),
    modeRow('async request to webhook p50 (ms)', (m) => m.async.p50),
    modeRow('async request to webhook p90 (ms)', (m) => m.async.p90),
    modeRow('async request to webhook p99 (ms)', (m) => m.async.p99),
    logRow('ledger append (events/s)', (r) => eventsPerSecond(r.events, r.appendMs)),
    logRow('ledger replay: read + fold (events/s)', (r) => eventsPerSecond(r.events, r.replayMs)),
    logRow('ledger read alone (events/s)', (r) => eventsPerSecond(r.events, r.replayMs - r.foldMs)),
  ];
}

/** The report as one plain-text table, with what was measured above it and the checks below. */
export function formatClusterReport(report: ClusterBenchReport): string {
  const o = report.options;
  const header = [
    `cluster benchmark: ${o.modes.join(' and ')} mode in one run`,
    `requests: youtube sd webp with a title; per mode ${o.warmup} sync + ${o.warmup} async warm-up, ` +
      `${o.sequential} sync one at a time, ${o.loadRequests} sync over ${o.connections} connections ` +
      `(autocannon), ${o.asyncJobs} async timed from request to webhook received`,
    `ledger: ${o.events.toLocaleString('en-US')} billing events of ${o.accounts.toLocaleString('en-US')} ` +
      'accounts appended, then read from the start and folded into ledgers; embedded = file log ' +
      '(fsync always), cluster = Kafka (one partition, acks all)',
    '',
  ];
  const rows = reportRows(report).map((row) =>
    line([row.label, number(row.embedded, row.digits), number(row.cluster, row.digits), ratio(row)]),
  );
  const checks = [
    ...report.modes.map(
      (m) => `${m.mode}: ${m.load.requests} sync requests under load, ${m.load.failures} failed`,
    ),
    ...report.replay.map(
      (r) =>
        `${r.log === 'file' ? 'file log' : 'kafka'}: ${r.events.toLocaleString('en-US')} events replayed into ` +
        `${r.accounts.toLocaleString('en-US')} ledgers, ${r.ledgersMatch ? 'equal to' : 'DIFFERENT FROM'} billing's`,
    ),
  ];
  const fence = report.fence ? ['', ...formatFenceReport(report.fence)] : [];
  return [...header, line([...COLUMNS]), ...rows, ...fence, '', ...checks].join('\n');
}
