import { parseArgs } from 'node:util';
import { terminalProgress } from '../cluster/progress.js';
import { formatStartup, startupChecks } from './report.js';
import { measureStartup } from './startup.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, accounts: { type: 'string', default: '5000' } },
});
const events = Number(values.events);
const accounts = Number(values.accounts);
if (!Number.isInteger(events) || events < 1 || !Number.isInteger(accounts) || accounts < 1) {
  console.error('usage: npm run bench:startup -- [--events N] [--accounts N]');
  process.exit(2);
}
const measured = await measureStartup({ events, accounts, progress: terminalProgress() });
console.log(formatStartup(measured).join('\n'));
for (const check of startupChecks(measured)) {
  console.log(`${check.pass ? 'PASS' : 'FAIL'}  ${check.target}: ${check.measured}`);
}
