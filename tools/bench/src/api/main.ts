import { parseArgs } from 'node:util';
import { formatApiReport, runApiBench } from './bench.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '30' }, warmup: { type: 'string', default: '3' } },
});
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(warmup) || warmup < 0) {
  console.error('usage: npm run bench:api -- [--rounds N] [--warmup N]');
  process.exit(2);
}
console.log(formatApiReport(await runApiBench({ rounds, warmup })));
