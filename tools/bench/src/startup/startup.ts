import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TOPICS } from '@thumbforge/contracts';
import { FileEventLog } from '@thumbforge/event-log';
import { billingHistory } from '../cluster/billing-history.js';
import type { Progress } from '../cluster/progress.js';
import { startEmbedded } from '../cluster/targets.js';

export interface StartupOptions {
  /** Billing events on the log before the first start. */
  events: number;
  accounts: number;
  progress: Progress;
}

export interface StartupMeasurement {
  events: number;
  /** Spawn to `/health/ready` with no snapshot: every projection replays the whole log. */
  withoutSnapshotMs: number;
  /** The same data directory started again: the snapshot saved at the first stop, then the log after it. */
  withSnapshotMs: number;
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
    options.progress.note(`start-up: embedded mode on ${options.events.toLocaleString('en-US')} events`);
    const first = await startEmbedded({ dataDir });
    const stopping = performance.now();
    await first.stop();
    const stopMs = performance.now() - stopping;
    const snapshotBytes = (await stat(join(dataDir, 'snapshots', 'projections.bin'))).size;
    options.progress.note('start-up: again, from the snapshot');
    const second = await startEmbedded({ dataDir });
    await second.stop();
    return {
      events: options.events,
      withoutSnapshotMs: first.readyMs!,
      withSnapshotMs: second.readyMs!,
      stopMs,
      snapshotBytes,
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
