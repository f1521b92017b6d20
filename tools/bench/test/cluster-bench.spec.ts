import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBillingFact, remaining } from '@thumbforge/domain';
import { FileEventLog } from '@thumbforge/event-log';
import {
  billingHistory,
  hopSteps,
  CLUSTER_REPORT_COLUMNS,
  formatClusterReport,
  ledgerDigest,
  measureReplay,
  percentile,
  reportRows,
  runClusterBench,
  silentProgress,
  targetChecks,
  type ClusterBenchReport,
} from '../src/index.js';

const ROW_LABELS = [
  'sync latency p50, one at a time (ms)',
  'sync latency p90, one at a time (ms)',
  'sync latency p99, one at a time (ms)',
  'sync throughput, 2 connections (requests/s)',
  'sync latency p50, 2 connections (ms)',
  'sync latency p90, 2 connections (ms)',
  'sync latency p99, 2 connections (ms)',
  'async request to webhook p50 (ms)',
  'async request to webhook p90 (ms)',
  'async request to webhook p99 (ms)',
  'largest service process RSS after the run (MiB)',
  'ledger append (events/s)',
  'ledger replay: read + fold (events/s)',
  'ledger read alone (events/s)',
  'bare kafkajs consumer, same topic (events/s)',
];

describe('billingHistory', () => {
  it('makes exactly the events asked for, the same for a seed, with ledgers that never overdraw', () => {
    const make = () => billingHistory({ events: 3_000, accounts: 3, chunk: 250 });
    const first = make();
    const chunks = [...first.chunks];
    expect(chunks.map((c) => c.length)).toEqual(Array(12).fill(250));
    const events = chunks.flat();
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events.filter((e) => !isBillingFact(e)).map((e) => e.type)).toEqual(
      expect.arrayContaining(['billing.account-open-requested', 'billing.reservation-requested']),
    );
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set([
        'billing.account-open-requested',
        'billing.account-opened',
        'billing.period-started',
        'billing.reservation-requested',
        'billing.credits-reserved',
        'billing.credits-rejected',
        'billing.credits-captured',
        'billing.credits-released',
      ]),
    );
    expect(first.ledgers.size).toBe(3);
    for (const ledger of first.ledgers.values()) {
      expect(ledger.used + ledger.reserved).toBeLessThanOrEqual(ledger.allowance);
      expect(remaining(ledger)).toBeGreaterThanOrEqual(0);
    }

    const second = make();
    for (const _chunk of second.chunks);
    expect(ledgerDigest(second.ledgers)).toBe(ledgerDigest(first.ledgers));
  });
});

describe('measureReplay', () => {
  it('replays a history that ends in commands: its facts are all read, its last records skipped', async () => {
    // 1,000 events among 5,000 accounts are account openings alone: command, opened, period started.
    const history = billingHistory({ events: 1_000, accounts: 5_000, chunk: 100 });
    const chunks = [...history.chunks];
    expect(isBillingFact(chunks.at(-1)!.at(-1)!)).toBe(false);
    const dir = await mkdtemp(join(tmpdir(), 'bench-replay-'));
    const log = new FileEventLog({ dir, fsync: 'never' });
    try {
      await log.open();
      const measured = await measureReplay(log, 'file', 'bench.billing.replay', {
        chunks,
        expectedDigest: ledgerDigest(history.ledgers),
        progress: silentProgress,
      });
      expect(measured).toMatchObject({ events: 1_000, facts: 666, accounts: 333, ledgersMatch: true });
      // Handed over: the replays do not keep the history alive.
      expect(chunks).toEqual([]);
    } finally {
      await log.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([50, 90, 99, 100].map((p) => percentile(sorted, p))).toEqual([50, 90, 99, 100]);
    expect(percentile([7], 99)).toBe(7);
  });
});

/** A report of a tiny run of both modes; the Kafka replay takes `kafkaReplayMs`, its bare consumer 3 s. */
function sampleReport(kafkaReplayMs = 4_000): ClusterBenchReport {
  const latency = (ms: number) => ({ samples: 10, p50: ms, p90: ms * 2, p99: ms * 4 });
  const mode = (name: 'embedded' | 'cluster', ms: number, rps: number, rssMiB: Record<string, number>) => ({
    mode: name,
    sync: latency(ms),
    load: [{ connections: 2, requests: 8, requestsPerSecond: rps, p50: ms, p90: ms, p99: ms, failures: 0 }],
    async: latency(ms * 3),
    rssMiB,
  });
  const replay = (log: 'file' | 'kafka', replayMs: number, rawConsumeMs?: number) => ({
    log,
    events: 10_000,
    facts: 7_000,
    accounts: 10,
    appendMs: 1_000,
    rounds: 3,
    replayMs,
    foldMs: replayMs / 2,
    ledgersMatch: true,
    rawConsumeMs,
    rawConsumeRunsMs: rawConsumeMs ? [rawConsumeMs, rawConsumeMs * 0.8, rawConsumeMs * 1.6] : undefined,
  });
  return {
    options: {
      modes: ['embedded', 'cluster'],
      replayLogs: ['file', 'kafka'],
      warmup: 1,
      warmupLoad: 0,
      sequential: 10,
      idleMs: 5_000,
      connections: [2],
      loadRequests: 8,
      asyncJobs: 10,
      fenceReservations: 0,
      events: 10_000,
      accounts: 10,
      startupEvents: 10_000,
    },
    modes: [
      mode('embedded', 50, 20, { embedded: 200 }),
      mode('cluster', 60, 17, { gateway: 180, billing: 120, rendering: 240 }),
    ],
    replay: [replay('file', 1_000), replay('kafka', kafkaReplayMs, 3_000)],
    startup: [
      {
        events: 10_000,
        starts: 1,
        withoutSnapshotMs: 9_000,
        withSnapshotMs: 2_500,
        withoutSnapshotMiB: 300,
        withSnapshotMiB: 180,
        stopMs: 700,
        snapshotBytes: 3 << 20,
      },
    ],
  };
}

describe('bench:cluster report', () => {
  it('puts embedded and cluster figures side by side with their ratio', () => {
    const report = sampleReport();
    const rows = reportRows(report);
    expect(rows.map((r) => r.label)).toEqual(ROW_LABELS);
    expect(rows.find((r) => r.label.startsWith('ledger replay'))).toMatchObject({
      embedded: 10_000,
      cluster: 2_500,
    });

    const lines = formatClusterReport(report).split('\n');
    const table = lines.indexOf(lines.find((l) => l.startsWith('figure'))!);
    expect(lines[table]!.split(/\s{2,}/)).toEqual([...CLUSTER_REPORT_COLUMNS]);
    expect(lines[table + 1]).toMatch(/^sync latency p50, one at a time \(ms\)\s+50\.0\s+60\.0\s+1\.20x$/);
    expect(lines[table + 4]).toMatch(
      /^sync throughput, 2 connections \(requests\/s\)\s+20\.0\s+17\.0\s+0\.85x$/,
    );
    expect(lines[table + 11]).toMatch(
      /^largest service process RSS after the run \(MiB\)\s+200\s+240\s+1\.20x$/,
    );
    expect(lines[table + 13]).toMatch(
      /^ledger replay: read \+ fold \(events\/s\)\s+10,000\s+2,500\s+0\.25x$/,
    );
    expect(lines[table + 14]).toMatch(/^ledger read alone \(events\/s\)\s+20,000\s+5,000\s+0\.25x$/);
    expect(lines[table + 15]).toMatch(/^bare kafkajs consumer, same topic \(events\/s\)\s+-\s+3,333\s+-$/);
    expect(lines.slice(table + 16)).toEqual([
      '',
      'start-up of embedded mode after 10,000 billing events (spawn to /health/ready):',
      '  without a snapshot (full replay)                9.00 s   RSS at ready 300 MiB',
      '  with the snapshot saved at the last stop        2.50 s   RSS at ready 180 MiB',
      '  stop, saving the snapshot                       0.70 s',
      '  snapshot size                                  3.0 MiB',
      '',
      'embedded: 8 sync requests over 2 connections, 0 failed',
      'cluster: 8 sync requests over 2 connections, 0 failed',
      "file log: 10,000 events replayed (7,000 facts folded, the commands skipped undecoded) into 10 ledgers, equal to billing's; medians of 3 replays",
      "kafka: 10,000 events replayed (7,000 facts folded, the commands skipped undecoded) into 10 ledgers, equal to billing's; medians of 3 replays, the bare consumer after each (3,333 ev/s, 4,167 ev/s, 2,083 ev/s)",
      '',
      'targets:',
      'PASS  cluster sync, one at a time, p50 <= embedded + 15 ms: 60.0 ms vs 50.0 ms (+10.0 ms)',
      'PASS  cluster throughput at 2 connections >= 0.8x embedded: 17.0 vs 20.0 req/s (0.85x)',
      'PASS  cluster sync at 2 connections p50 <= embedded + 15 ms: 60.0 ms vs 50.0 ms (+10.0 ms)',
      'FAIL  cluster async request to webhook p50 <= embedded + 25 ms: 180.0 ms vs 150.0 ms (+30.0 ms)',
      'PASS  cluster gateway process RSS <= 250 MB (238 MiB) after the run: 180 MiB',
      'PASS  cluster billing process RSS <= 250 MB (238 MiB) after the run: 120 MiB',
      'FAIL  cluster rendering process RSS <= 250 MB (238 MiB) after the run: 240 MiB',
      'FAIL  ledger replay from the file log >= 500,000 ev/s: 10,000 ev/s',
      'PASS  ledger replay from Kafka >= 0.7x a bare kafkajs consumer: 2,500 ev/s vs 3,333 ev/s (0.75x)',
      'PASS  embedded ready <= 3.00 s after 10,000 events, from a snapshot: 2.50 s (9.00 s without)',
    ]);
  });

  it('shows where each mode’s CPU went per request, and the throughput that leaves on the machine', () => {
    const report = sampleReport();
    const cpu = (
      connections: number,
      wallMs: number,
      ms: Record<string, number>,
      servers: string[] = [],
    ) => ({
      connections,
      cores: 2,
      requests: 8,
      wallMs,
      ms,
      servers,
    });
    // One at a time, 8 requests of 50 ms CPU in 400 ms: one core busy; of 180 ms in 960 ms: 1.5.
    report.modes[0]!.cpuOneAtATime = cpu(1, 400, { embedded: 50 });
    report.modes[1]!.cpuOneAtATime = cpu(1, 960, { rendering: 100, kafka: 80 }, ['kafka']);
    report.modes[0]!.cpu = cpu(2, 320, { embedded: 80 });
    report.modes[1]!.cpu = cpu(
      2,
      720,
      { gateway: 20, rendering: 90, kafka: 30, ferretdb: 25, minio: 5, billing: 10 },
      ['kafka', 'ferretdb', 'minio'],
    );
    // Standing: 10 ms/s embedded; 90 ms/s cluster, which at its 8 requests in 960 ms (8.3/s) is 10.8 ms each.
    report.modes[0]!.idle = { wallMs: 5_000, msPerSecond: { embedded: 10 }, servers: [] };
    report.modes[1]!.idle = { wallMs: 5_000, msPerSecond: { rendering: 20, kafka: 70 }, servers: ['kafka'] };
    const lines = formatClusterReport(report).split('\n');
    const start = lines.findIndex((l) => l.startsWith('CPU per sync request'));
    expect(lines.slice(start - 1, start + 10)).toEqual([
      '',
      "CPU per sync request (ms of user + system time from /proc, every thread; the bench's own client not counted):",
      '  one at a time: embedded 50.0 in all, 1.00 of 2 cores busy on average; cluster 180.0 in all, 1.50 of 2 cores busy on average',
      '  one after another, a request cannot average under its CPU over the cores: 25.0 ms embedded, 90.0 ms cluster',
      '  with no requests (5.0 s after the warm-up), ms per second: embedded 10.0; cluster 90.0 (kafka 70.0, rendering 20.0; servers 70.0)',
      '  of the CPU per request one at a time, that much is standing: embedded 0.5 of 50.0 ms (20.0 requests/s), cluster 10.8 of 180.0 ms (8.3 requests/s)',
      '  at 2 connections:',
      '  embedded    80.0 in all: embedded 80.0',
      '  cluster    180.0 in all: rendering 90.0, kafka 30.0, ferretdb 25.0, gateway 20.0, billing 10.0, minio 5.0; servers 60.0',
      '  on 2 cores, at most 25.0 requests/s embedded, 11.1 requests/s cluster',
      "  0.8x embedded's 20.0 requests/s leaves the cluster 125.0 ms of CPU per request in all; its servers took 60.0",
    ]);
    // Measured in neither mode: no such lines.
    expect(formatClusterReport(sampleReport())).not.toContain('CPU per sync request');
  });

  it('fails the Kafka replay against a bare consumer that was slower than the replay itself', () => {
    const kafka = targetChecks(sampleReport(2_000)).find((c) =>
      c.target.startsWith('ledger replay from Kafka'),
    );
    expect(kafka).toEqual({
      target: 'ledger replay from Kafka >= 0.7x a bare kafkajs consumer',
      measured:
        '5,000 ev/s vs 3,333 ev/s (1.50x); the bare consumer was slower than the replay: not a baseline',
      pass: false,
    });
  });
});

// The cluster half (five processes on Kafka, FerretDB and MinIO, and the Kafka replay) costs a minute of
// start-up, so it runs only in the full bench; this tiny run takes the same code paths in embedded mode.
describe('bench:cluster tiny run (embedded mode and the file log)', () => {
  it('measures every embedded figure and replays the history into equal ledgers', async () => {
    const report = await runClusterBench({
      modes: ['embedded'],
      replayLogs: ['file'],
      events: 2_000,
      accounts: 30,
      warmup: 1,
      warmupLoad: 0,
      sequential: 3,
      idleMs: 300,
      connections: [2],
      loadRequests: 4,
      asyncJobs: 2,
      startupEvents: 2_000,
      fenceReservations: 0,
      progress: silentProgress,
    });

    expect(report.modes).toHaveLength(1);
    const [embedded] = report.modes;
    expect(embedded).toMatchObject({
      mode: 'embedded',
      sync: { samples: 3 },
      load: [{ connections: 2, requests: 4, failures: 0 }],
      async: { samples: 2 },
    });
    for (const summary of [embedded!.sync, embedded!.async]) {
      expect(summary.p50).toBeGreaterThan(0);
      expect(summary.p90).toBeGreaterThanOrEqual(summary.p50);
      expect(summary.p99).toBeGreaterThanOrEqual(summary.p90);
    }
    expect(embedded!.load[0]!.requestsPerSecond).toBeGreaterThan(0);
    // The CPU of the one process over the load run, per request it answered.
    expect(embedded!.cpu).toMatchObject({ connections: 2, requests: 4, servers: [] });
    expect(embedded!.cpuOneAtATime).toMatchObject({ connections: 1, requests: 3, servers: [] });
    for (const cpu of [embedded!.cpu!, embedded!.cpuOneAtATime!]) {
      expect(Object.keys(cpu.ms)).toEqual(['embedded']);
      expect(cpu.ms.embedded).toBeGreaterThan(0);
      expect(cpu.wallMs).toBeGreaterThan(0);
    }
    // Its CPU with nothing asked of it, over the idle wait it was given, in ms per second.
    expect(embedded!.idle!.wallMs).toBeGreaterThanOrEqual(299);
    expect(Object.keys(embedded!.idle!.msPerSecond)).toEqual(['embedded']);
    expect(embedded!.idle!.msPerSecond.embedded).toBeGreaterThanOrEqual(0);
    expect(embedded!.idle!.msPerSecond.embedded).toBeLessThan(2_000);
    // The resident memory of the one process, read from /proc after the mode's requests.
    expect(Object.keys(embedded!.rssMiB)).toEqual(['embedded']);
    expect(embedded!.rssMiB.embedded).toBeGreaterThan(50);
    // Both starts reached ready on the same history; the second loaded the snapshot the first saved.
    expect(report.startup).toEqual([
      expect.objectContaining({ events: 2_000, snapshotBytes: expect.any(Number) }),
    ]);
    expect(report.startup![0]!.snapshotBytes).toBeGreaterThan(0);
    expect(report.startup![0]!.withSnapshotMs).toBeGreaterThan(0);
    expect(report.startup![0]!.withSnapshotMiB).toBeGreaterThan(50);
    expect(report.replay).toEqual([
      expect.objectContaining({ log: 'file', events: 2_000, accounts: 30, ledgersMatch: true }),
    ]);

    const lines = formatClusterReport(report).split('\n');
    expect(lines[0]).toBe('cluster benchmark: embedded mode in one run');
    const table = lines.indexOf(lines.find((l) => l.startsWith('figure'))!);
    // The bare kafkajs row has no embedded figure: it is the Kafka replay's baseline.
    const rows = lines.slice(table + 1, table + ROW_LABELS.length);
    rows.forEach((row, i) => {
      expect(row.startsWith(ROW_LABELS[i]!)).toBe(true);
      // An embedded figure, no cluster figure, so no ratio.
      expect(row.slice(ROW_LABELS[i]!.length).trim().split(/\s+/)).toEqual([
        expect.stringMatching(/^[\d,]+(\.\d)?$/),
        '-',
        '-',
      ]);
    });
    const facts = report.replay[0]!.facts;
    // Accounts open with facts, and each job has a command besides its facts.
    expect(facts).toBeGreaterThan(1_000);
    expect(facts).toBeLessThan(2_000);
    expect(lines).toContain(
      `file log: 2,000 events replayed (${facts.toLocaleString('en-US')} facts folded, the commands skipped undecoded) into 30 ledgers, equal to billing's; medians of 3 replays`,
    );
  }, 120_000);
});

describe('hop profile', () => {
  const request = (generationId: string, sentAt: number, ms: number) => ({ generationId, sentAt, ms });
  const event = (
    type: string,
    at: number,
    correlationId: string | null = 'job_a',
    generationId?: string,
  ) => ({
    type,
    at,
    correlationId,
    generationId,
  });

  it.each([
    [
      'one request: each step from the previous event, ending at the response',
      [request('gen_a', 1_000, 100)],
      [
        event('asset.job-assets-requested', 1_010),
        event('billing.credits-reserved', 1_030, 'job_a', 'gen_a'),
        event('render.succeeded', 1_080),
        // After the response: not part of the request's time.
        event('billing.credits-captured', 1_200),
        event('billing.account-opened', 900, 'acc_1'),
      ],
      [
        { step: 'request sent -> asset.job-assets-requested', p50: 10, samples: 1 },
        { step: 'asset.job-assets-requested -> billing.credits-reserved', p50: 20, samples: 1 },
        { step: 'billing.credits-reserved -> render.succeeded', p50: 50, samples: 1 },
        { step: 'render.succeeded -> response read', p50: 20, samples: 1 },
      ],
    ],
    [
      'medians over requests, events in time order whatever order they were read in',
      [request('gen_a', 0, 40), request('gen_b', 100, 60), request('gen_c', 200, 30)],
      [
        event('render.succeeded', 30, 'job_a'),
        event('billing.credits-reserved', 10, 'job_a', 'gen_a'),
        event('billing.credits-reserved', 120, 'job_b', 'gen_b'),
        event('render.succeeded', 150, 'job_b'),
        event('billing.credits-reserved', 205, 'job_c', 'gen_c'),
        event('render.succeeded', 225, 'job_c'),
      ],
      [
        { step: 'request sent -> billing.credits-reserved', p50: 10, samples: 3 },
        { step: 'billing.credits-reserved -> render.succeeded', p50: 20, samples: 3 },
        { step: 'render.succeeded -> response read', p50: 10, samples: 3 },
      ],
    ],
  ])('%s', (_name, requests, events, expected) => {
    expect(hopSteps(requests, events)).toEqual(expected);
  });
});
