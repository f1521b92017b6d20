import type { StartupMeasurement } from './startup.js';

/** DESIGN §12 and the issue: ready within 3 s after a million events, whatever the history. */
export const STARTUP_TARGET_MS = 3_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mib = (value: number) => `${value.toFixed(0)} MiB`;

export function formatStartup(m: StartupMeasurement): string[] {
  const events = m.events.toLocaleString('en-US');
  const medians = m.starts > 1 ? `, medians of ${m.starts} rounds` : '';
  return [
    `start-up of embedded mode after ${events} billing events (spawn to /health/ready${medians}):`,
    `  without a snapshot (full replay)            ${seconds(m.withoutSnapshotMs).padStart(10)}   RSS at ready ${mib(m.withoutSnapshotMiB)}`,
    `  with the snapshot saved at the last stop    ${seconds(m.withSnapshotMs).padStart(10)}   RSS at ready ${mib(m.withSnapshotMiB)}`,
    `  stop, saving the snapshot                   ${seconds(m.stopMs).padStart(10)}`,
    `  snapshot size                               ${`${(m.snapshotBytes / 1024 / 1024).toFixed(1)} MiB`.padStart(10)}`,
  ];
}

export function startupChecks(m: StartupMeasurement) {
  return [
    {
      target: `embedded ready <= ${seconds(STARTUP_TARGET_MS)} after ${m.events.toLocaleString('en-US')} events, from a snapshot`,
      measured: `${seconds(m.withSnapshotMs)} (${seconds(m.withoutSnapshotMs)} without)`,
      pass: m.withSnapshotMs <= STARTUP_TARGET_MS,
    },
  ];
}
