import { countOptions, loadNote } from '../cluster/counts.js';
import { terminalProgress } from '../cluster/progress.js';
import { formatStartup, startupChecks } from './report.js';
import { measureStartup } from './startup.js';

const { events, accounts, starts } = countOptions('bench:startup', {
  events: 1_000_000,
  accounts: 5_000,
  starts: 3,
});
const measured = await measureStartup({ events, accounts, starts, progress: terminalProgress() });
console.log(formatStartup(measured).join('\n'));
for (const check of startupChecks(measured)) {
  console.log(`${check.pass ? 'PASS' : 'FAIL'}  ${check.target}: ${check.measured}`);
}
console.log(loadNote());
