import { describe, expect, it } from 'vitest';
import { formatServiceReport, serviceTargetChecks, type ServiceBenchReport } from '../src/index.js';

const summary = (p50: number) => ({ samples: 10, p50, p90: p50 * 1.2, p99: p50 * 1.5 });
const load = (connections: number, p50: number, requestsPerSecond: number) => ({
  connections,
  requests: 100,
  requestsPerSecond,
  p50,
  p90: p50,
  p99: p50 * 2,
  failures: 0,
});

/** A run in which the service is `latency` × the bare engine and `throughput` × the render-only server. */
function report(
  latency: number,
  throughput: number,
  rss: [number, number],
  startupMs = 2_000,
): ServiceBenchReport {
  return {
    options: {
      connections: [1, 4, 16],
      requestsPerConnection: 25,
      minRequests: 100,
      warmup: 20,
      rounds: 5,
      rssAt: [1_000, 10_000],
      startupEvents: 1_000_000,
      startupAccounts: 5_000,
    },
    bare: { engine: summary(40), defaultWebp: summary(60) },
    servers: [
      { server: 'render-inline', loads: [load(1, 40, 25), load(4, 80, 50), load(16, 300, 50)] },
      { server: 'render-pool', loads: [load(1, 45, 22), load(4, 90, 40), load(16, 320, 48)] },
      {
        server: 'embedded',
        loads: [load(1, 40 * latency, 20), load(4, 90, 50 * throughput), load(16, 330, 50 * throughput)],
      },
    ],
    rss: [
      { requests: 1_000, stretch: 200, rssMb: rss[0], minMb: rss[0] - 20, maxMb: rss[0] + 30, reads: 9 },
      { requests: 10_000, stretch: 1_000, rssMb: rss[1], minMb: rss[1] - 25, maxMb: rss[1] + 40, reads: 80 },
    ],
    rssFailures: 0,
    startup: {
      events: 1_000_000,
      starts: 1,
      withoutSnapshotMs: 9_000,
      withSnapshotMs: startupMs,
      withoutSnapshotMiB: 480,
      withSnapshotMiB: 210,
      stopMs: 500,
      snapshotBytes: 40 * 1024 * 1024,
    },
  };
}

const verdicts = (r: ServiceBenchReport) => serviceTargetChecks(r).map((c) => c.pass);

describe('bench:service targets', () => {
  it('passes every target at the limits and against the faster render-only server', () => {
    expect(verdicts(report(1.15, 0.85, [250, 275], 3_000))).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('fails each target just past its limit', () => {
    expect(verdicts(report(1.16, 0.84, [280, 310], 3_001))).toEqual([
      false,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(verdicts(report(1.6, 1, [200, 221]))).toEqual([false, false, true, true, true, false, true]);
  });

  it('prints every server at every connection count, the RSS readings, the start-up rows and the targets', () => {
    const text = formatServiceReport(report(1.1, 0.9, [250, 260]));
    const rows = text.split('\n');
    for (const label of [
      'engine on the main thread',
      'piscina worker per core',
      'embedded service (fsync always)',
    ]) {
      expect(rows.filter((row) => row.includes(label))).toHaveLength(3);
    }
    expect(text).toContain('embedded RSS over requests 9,000-10,000: median 260 MB of 80 reads (235-300)');
    expect(text).toContain('with the snapshot saved at the last stop');
    expect(text).toContain('without a snapshot (full replay)');
    expect(rows.filter((row) => /^ {2}(PASS|FAIL) {2}/.test(row))).toHaveLength(7);
  });
});
