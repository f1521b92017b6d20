import type { BenchReport, CaseReport } from './bench.js';
import { MAX_OVER_LATIN } from './scripts.js';

const COLUMNS = ['contender', 'median ms', 'bytes', 'x floor', 'engine faster by'] as const;
const WIDTHS = [48, 10, 11, 8, 17];

function row(cells: string[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(WIDTHS[i]!) : cell.padStart(WIDTHS[i]!))).join(' ');
}

function caseTable(report: CaseReport): string[] {
  const floor = report.measurements.find((m) => m.id === 'floor')?.medianMs ?? null;
  const engine = report.measurements.find((m) => m.id === 'engine')?.medianMs ?? null;
  const lines = [
    `${report.label} (${report.width}x${report.height})`,
    row([...COLUMNS]),
    ...report.measurements.map((m) => {
      if (m.medianMs === null) return row([m.label, '-', '-', '-', `skipped: ${m.skipped ?? ''}`]);
      const overFloor = floor ? (m.medianMs / floor).toFixed(2) : '-';
      const fasterBy =
        m.id !== 'engine' && m.id !== 'floor' && engine ? `${(m.medianMs / engine).toFixed(2)}x` : '';
      return row([m.label, m.medianMs.toFixed(1), m.bytes!.toLocaleString('en-US'), overFloor, fasterBy]);
    }),
    '  targets',
    ...report.targets.map(
      (t) =>
        `    ${t.label.padEnd(58)} ${t.measured.padStart(8)}  ${t.pass === null ? 'n/a' : t.pass ? 'PASS' : 'FAIL'}`,
    ),
  ];
  return lines;
}

function scriptTable(report: BenchReport): string[] {
  return [
    `engine by script (youtube sd webp, title only; target: each at most ${MAX_OVER_LATIN}x the Latin row)`,
    "x Latin: the median over rounds of the row's render time over the Latin render of the same round",
    `${'script'.padEnd(14)} ${'median ms'.padStart(10)} ${'x Latin'.padStart(8)}`,
    ...report.scripts.map(
      (r) =>
        `${r.script.padEnd(14)} ${r.medianMs.toFixed(1).padStart(10)} ${r.overLatin.toFixed(2).padStart(8)}  ${r.pass ? 'PASS' : 'FAIL'}`,
    ),
  ];
}

/** The report as a plain-text table, one block per case, then the engine's rows by script. */
export function formatReport(report: BenchReport): string {
  const header = [
    `render benchmark: median of ${report.iterations} renders after ${report.warmup} warm-up rounds` +
      ` (chromium launched per render: ${report.launchIterations})`,
    `encoder (every contender): ${report.encoder}`,
    'x floor: median time over the floor; engine faster by: the contender median over the engine median',
    '',
  ];
  return [...header, ...report.cases.flatMap((c) => [...caseTable(c), '']), ...scriptTable(report), ''].join(
    '\n',
  );
}
