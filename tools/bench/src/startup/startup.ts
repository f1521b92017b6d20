import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TOPICS } from '@thumbforge/contracts';
import { FileEventLog } from '@thumbforge/event-log';
import { billingHistory } from '../cluster/billing-history.js';
import type { Progress } from '../cluster/progress.js';
import { residentMiB, startEmbedded } from '../cluster/targets.js';

export interface StartupOptions {
  /** Billing events on the log before the first start. */
  events: number;
  accounts: number;
  /** Rounds of a start without the snapshot and one with it (default 1); the figures are medians. */
  starts?: number;
  progress: Progress;
}

export interface StartupMeasurement {
  events: number;
  /** Rounds measured: each figure below is the median over them. */
  starts: number;
  /** Spawn to `/health/ready` with no snapshot: every projection replays the whole log. */
  withoutSnapshotMs: number;
  /** The same data directory started again: the snapshot saved at the first stop, then the log after it. */
  withSnapshotMs: number;
  /** Resident memory at ready, of the start without the snapshot and of the one with it. */
  withoutSnapshotMiB: number;
  withSnapshotMiB: number;
  /** SIGTERM to exit of the first start, which saves the snapshot. */
  stopMs: number;
  snapshotBytes: number;
}

/**
 * The processors that read billing's topic from their committed positions. A running installation
 * has them caught up, so the history is marked handled for them before the first start: the figures
 * are the projections' start-up, not a first run of every billing command and render.
 */
const BILLING_TOPIC_PROCESSORS = ['billing', 'rendering'];

async function writeHistory(dataDir: string, options: StartupOptions): Promise<void> {
  const log = new FileEventLog({ dir: join(dataDir, 'log'), fsync: 'never' });
  await log.open();
  try {
    const bar = options.progress.start('start-up: write the history', options.events);
    let written = 0;
    const history = billingHistory({ events: options.events, accounts: options.accounts, chunk: 1_000 });
    for (const chunk of history.chunks) {
      await log.append(TOPICS.billing, chunk);
      bar.update((written += chunk.length));
    }
    bar.stop();
    for (const group of BILLING_TOPIC_PROCESSORS) {
      const caughtUp = await log.subscribe({
        group,
        topics: [TOPICS.billing],
        from: 'committed',
        handle: async () => undefined,
      });
      await caughtUp.caughtUp;
      await caughtUp.close();
    }
  } finally {
    await log.close();
  }
}

/**
 * Time to ready of embedded mode after `events` billing events: started on the history alone (a full
 * replay), stopped (which saves the projection snapshot), then started again from the snapshot.
 */
export async function measureStartup(options: StartupOptions): Promise<StartupMeasurement> {
  const dataDir = await mkdtemp(join(tmpdir(), 'thumbforge-bench-startup-'));
  try {
    await writeHistory(dataDir, options);
    const snapshot = join(dataDir, 'snapshots', 'projections.bin');
    const rounds: Omit<StartupMeasurement, 'events' | 'starts'>[] = [];
    const starts = options.starts ?? 1;
    for (let round = 1; round <= starts; round++) {
      const of = starts > 1 ? ` (${round} of ${starts})` : '';
      await rm(snapshot, { force: true });
      options.progress.note(
        `start-up: embedded mode on ${options.events.toLocaleString('en-US')} events${of}`,
      );
      const first = await startEmbedded({ dataDir });
      const withoutSnapshotMiB = await residentMiB(first.processes().embedded!);
      const stopping = performance.now();
      await first.stop();
      const stopMs = performance.now() - stopping;
      const snapshotBytes = (await stat(snapshot)).size;
      options.progress.note(`start-up: again, from the snapshot${of}`);
      const second = await startEmbedded({ dataDir });
      const withSnapshotMiB = await residentMiB(second.processes().embedded!);
      await second.stop();
      rounds.push({
        withoutSnapshotMs: first.readyMs!,
        withSnapshotMs: second.readyMs!,
        withoutSnapshotMiB,
        withSnapshotMiB,
        stopMs,
        snapshotBytes,
      });
    }
    const median = (pick: (round: (typeof rounds)[number]) => number) => {
      const sorted = rounds.map(pick).sort((a, b) => a - b);
      return sorted[Math.floor(sorted.length / 2)]!;
    };
    return {
      events: options.events,
      starts,
      withoutSnapshotMs: median((r) => r.withoutSnapshotMs),
      withSnapshotMs: median((r) => r.withSnapshotMs),
      withoutSnapshotMiB: median((r) => r.withoutSnapshotMiB),
      withSnapshotMiB: median((r) => r.withSnapshotMiB),
      stopMs: median((r) => r.stopMs),
      snapshotBytes: median((r) => r.snapshotBytes),
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
