import { parseArgs } from 'node:util';
import { terminalProgress } from '../cluster/progress.js';
import { runServiceBench } from './bench.js';
import { formatServiceReport } from './report.js';

const USAGE = `usage: npm run bench:service -- [--connections 1,4,16] [--requests-per-connection N]
                                  [--min-requests N] [--warmup N] [--rounds N] [--rss-at 1000,10000]
                                  [--startup-events 1000000] [--startup-accounts 5000]`;

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 10_000_000) fail(`--${name} must be a whole number`);
  return n;
}

function counts(value: string | undefined, name: string, fallback: number[]): number[] {
  if (value === undefined) return fallback;
  const list = value === '' ? [] : value.split(',').map((part) => count(part, name, 0));
  if (list.some((n, i) => i > 0 && n <= list[i - 1]!)) fail(`--${name} must be ascending`);
  return list;
}

const { values } = parseArgs({
  options: {
    connections: { type: 'string' },
    'requests-per-connection': { type: 'string' },
    'min-requests': { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    'rss-at': { type: 'string' },
    'startup-events': { type: 'string' },
    'startup-accounts': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const report = await runServiceBench({
  connections: counts(values.connections, 'connections', [1, 4, 16]),
  requestsPerConnection: count(values['requests-per-connection'], 'requests-per-connection', 50),
  minRequests: count(values['min-requests'], 'min-requests', 100),
  warmup: count(values.warmup, 'warmup', 20),
  rounds: Math.max(1, count(values.rounds, 'rounds', 5)),
  rssAt: counts(values['rss-at'], 'rss-at', [1_000, 10_000]),
  startupEvents: count(values['startup-events'], 'startup-events', 1_000_000),
  startupAccounts: Math.max(1, count(values['startup-accounts'], 'startup-accounts', 5_000)),
  progress: terminalProgress(),
});
console.log(formatServiceReport(report));
