import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runRenderBench } from './bench.js';
import { chooseChromium } from './contenders.js';
import { formatReport } from './report.js';

const USAGE = `usage: npm run bench:render -- [--iterations N] [--warmup N] [--launches N] [--no-chromium]`;

function count(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) {
    console.error(`--${name} must be a whole number from 0 to ${max}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({
  options: {
    iterations: { type: 'string' },
    warmup: { type: 'string' },
    launches: { type: 'string' },
    'no-chromium': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const chromium = chooseChromium(values['no-chromium'], existsSync);
if (chromium.warning) console.error(chromium.warning);

const report = await runRenderBench({
  iterations: Math.max(1, count(values.iterations, 'iterations', 15, 1000)),
  warmup: count(values.warmup, 'warmup', 3, 100),
  launchIterations: count(values.launches, 'launches', 5, 100),
  chromiumPath: chromium.path,
  chromiumSkipReason: chromium.skipReason,
  progress: (message) => console.error(message),
});
console.log(formatReport(report));
