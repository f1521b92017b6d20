import { parseArgs } from 'node:util';
import { runClusterBench } from './bench.js';
import { terminalProgress } from './progress.js';
import { formatClusterReport } from './report.js';

const USAGE = `usage: npm run bench:cluster -- [--events N] [--accounts N] [--sequential N] [--warmup N]
                                  [--warmup-load N] [--connections N,N...] [--load-requests N] [--async-jobs N]
                                  [--startup-events N] [--fence-reservations N] [--idle-seconds N]`;

function count(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`--${name} must be a whole number from ${min} to ${max}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({
  options: {
    events: { type: 'string' },
    accounts: { type: 'string' },
    sequential: { type: 'string' },
    warmup: { type: 'string' },
    'warmup-load': { type: 'string' },
    connections: { type: 'string' },
    'load-requests': { type: 'string' },
    'async-jobs': { type: 'string' },
    'startup-events': { type: 'string' },
    'fence-reservations': { type: 'string' },
    'idle-seconds': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const report = await runClusterBench({
  modes: ['embedded', 'cluster'],
  replayLogs: ['file', 'kafka'],
  events: count(values.events, 'events', 1_000_000, 1, 100_000_000),
  accounts: count(values.accounts, 'accounts', 5_000, 1, 1_000_000),
  sequential: count(values.sequential, 'sequential', 100, 1, 100_000),
  warmup: count(values.warmup, 'warmup', 10, 0, 10_000),
  idleMs: 1_000 * count(values['idle-seconds'], 'idle-seconds', 5, 0, 600),
  warmupLoad: count(values['warmup-load'], 'warmup-load', 600, 0, 100_000),
  connections: (values.connections ?? '4,16').split(',').map((c) => count(c, 'connections', 4, 1, 1_000)),
  loadRequests: count(values['load-requests'], 'load-requests', 200, 1, 1_000_000),
  asyncJobs: count(values['async-jobs'], 'async-jobs', 30, 1, 100_000),
  startupEvents: count(values['startup-events'], 'startup-events', 1_000_000, 0, 100_000_000),
  fenceReservations: count(values['fence-reservations'], 'fence-reservations', 200, 0, 450),
  progress: terminalProgress(),
});
console.log(formatClusterReport(report));
