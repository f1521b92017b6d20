import { generateHistory, openFileLog, replayInto } from '../cluster/bench.js';
import { countOptions, loadNote } from '../cluster/counts.js';
import { terminalProgress } from '../cluster/progress.js';
import { eventsPerSecond, fileReplayCheck } from '../cluster/report.js';

const { events, accounts, rounds } = countOptions('bench:replay', {
  events: 1_000_000,
  accounts: 5_000,
  rounds: 5,
});
const progress = terminalProgress();
const history = generateHistory({ events, accounts, progress });
const m = await replayInto('file', await openFileLog(), history, progress, rounds);
const rate = (ms: number) => `${Math.round(eventsPerSecond(m.events, ms)).toLocaleString('en-US')} ev/s`;
console.log(
  [
    `ledger replay from the file log: ${m.events.toLocaleString('en-US')} billing events of ${m.accounts} accounts, median of ${m.rounds} replays`,
    `  ${m.facts.toLocaleString('en-US')} facts folded; the ${(m.events - m.facts).toLocaleString('en-US')} commands are skipped undecoded`,
    `  append (fsync always, 8 calls of 500 in flight)  ${rate(m.appendMs).padStart(14)}`,
    `  replay: read + fold                              ${rate(m.replayMs).padStart(14)}`,
    `  read alone                                       ${rate(m.replayMs - m.foldMs).padStart(14)}`,
    `  fold alone                                       ${rate(m.foldMs).padStart(14)}`,
    `  read + fold per second of the process's CPU      ${rate(m.replayCpuMs!).padStart(14)}`,
    `  replayed ledgers equal billing's: ${m.ledgersMatch ? 'yes' : 'NO'}`,
  ].join('\n'),
);
const check = fileReplayCheck(m);
console.log(`${check.pass ? 'PASS' : 'FAIL'}  ${check.target}: ${check.measured}`);
console.log(loadNote());
if (!m.ledgersMatch) process.exit(1);
