import { createHmac, randomUUID } from 'node:crypto';
import { startEmbedded, type Target } from '../cluster/targets.js';
import { summarize, type LatencySummary } from '../cluster/stats.js';

export interface ApiBenchOptions {
  rounds: number;
  warmup: number;
}

export interface ApiBenchRow {
  name: string;
  latency: LatencySummary;
  /** p50 against the row's baseline, measured in the same rounds. */
  ratio: number | null;
}

export interface ApiBenchTarget {
  name: string;
  ratio: number;
  limit: number;
  pass: boolean;
}

export interface ApiBenchReport {
  rounds: number;
  rows: ApiBenchRow[];
  targets: ApiBenchTarget[];
}

const REQUEST = { format: 'youtube', model: 'sd', outputFormat: 'webp' } as const;

async function timed(run: () => Promise<Response>, expected: number): Promise<number> {
  const started = performance.now();
  const res = await run();
  await res.arrayBuffer();
  const elapsed = performance.now() - started;
  if (res.status !== expected) throw new Error(`expected ${expected}, got ${res.status}`);
  return elapsed;
}

function signedUrl(base: string, accountId: string, secret: string, title: string): string {
  const path = `/v1/og/${accountId}.webp`;
  const query = `format=blogpost&title=${encodeURIComponent(title)}`;
  const sig = createHmac('sha256', secret).update(`${path}?${query}`).digest('base64url');
  return `${base}${path}?${query}&sig=${sig}`;
}

/**
 * Embedded mode, one request at a time, the contenders taking turns in every round so that load from
 * elsewhere hits them alike: a sync generate without and with a fresh Idempotency-Key, the replay of
 * a used key, and a signed image URL's first fetch (a render), cached fetch and 304.
 */
export async function runApiBench(options: ApiBenchOptions): Promise<ApiBenchReport> {
  const target: Target = await startEmbedded();
  try {
    const admin = { authorization: `Bearer ${target.adminToken}`, 'content-type': 'application/json' };
    const account = (await (
      await fetch(`${target.url}/admin/v1/accounts`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ plan: 'business' }),
      })
    ).json()) as { accountId: string; apiKey: string };
    const secret = (
      (await (
        await fetch(`${target.url}/admin/v1/accounts/${account.accountId}/url-signing-secrets`, {
          method: 'POST',
          headers: admin,
        })
      ).json()) as { secret: string }
    ).secret;

    const generate = (title: string, key?: string) =>
      fetch(`${target.url}/v1/generate`, {
        method: 'POST',
        headers: {
          'x-api-key': account.apiKey,
          'content-type': 'application/json',
          ...(key ? { 'idempotency-key': key } : {}),
        },
        body: JSON.stringify({ ...REQUEST, title }),
      });
    const samples: Record<string, number[]> = {};
    const record = (name: string, ms: number) => (samples[name] ??= []).push(ms);
    const usedKey = randomUUID();
    await timed(() => generate('Replayed title', usedKey), 200);

    for (let round = 0; round < options.warmup + options.rounds; round++) {
      const keep = round >= options.warmup;
      const title = `Bench title ${round}`;
      const a = await timed(() => generate(title), 200);
      const b = await timed(() => generate(title, randomUUID()), 200);
      const c = await timed(() => generate('Replayed title', usedKey), 200);
      const link = signedUrl(target.url, account.accountId, secret, `Signed ${round}`);
      const d = await timed(() => fetch(link), 200);
      const e = await timed(() => fetch(link), 200);
      const etag = (await fetch(link)).headers.get('etag')!;
      const f = await timed(() => fetch(link, { headers: { 'if-none-match': etag } }), 304);
      if (!keep) continue;
      record('generate, no key', a);
      record('generate, fresh Idempotency-Key', b);
      record('generate, replayed key', c);
      record('signed URL, first fetch (render)', d);
      record('signed URL, cached fetch', e);
      record('signed URL, If-None-Match → 304', f);
    }

    const p50 = (name: string) => summarize(samples[name]!).p50;
    const row = (name: string, baseline: string | null): ApiBenchRow => ({
      name,
      latency: summarize(samples[name]!),
      ratio: baseline ? p50(name) / p50(baseline) : null,
    });
    const rows = [
      row('generate, no key', null),
      row('generate, fresh Idempotency-Key', 'generate, no key'),
      row('generate, replayed key', 'generate, no key'),
      row('signed URL, first fetch (render)', null),
      row('signed URL, cached fetch', 'signed URL, first fetch (render)'),
      row('signed URL, If-None-Match → 304', 'signed URL, first fetch (render)'),
    ];
    const goal = (name: string, ratio: number, limit: number): ApiBenchTarget => ({
      name,
      ratio,
      limit,
      pass: ratio <= limit,
    });
    return {
      rounds: options.rounds,
      rows,
      targets: [
        goal('an Idempotency-Key costs at most 25 % of a sync generate', rows[1]!.ratio!, 1.25),
        goal('a replay takes at most half of a sync generate', rows[2]!.ratio!, 0.5),
        goal('a cached signed URL takes at most a tenth of its first fetch', rows[4]!.ratio!, 0.1),
      ],
    };
  } finally {
    await target.stop();
  }
}

export function formatApiReport(report: ApiBenchReport): string {
  const lines = [
    `embedded mode, ${report.rounds} rounds, one request at a time (ms)`,
    `${'row'.padEnd(36)} ${'p50'.padStart(8)} ${'p90'.padStart(8)} ${'p99'.padStart(8)}  ratio (p50)`,
  ];
  for (const r of report.rows) {
    const { p50, p90, p99 } = r.latency;
    lines.push(
      `${r.name.padEnd(36)} ${p50.toFixed(1).padStart(8)} ${p90.toFixed(1).padStart(8)} ${p99.toFixed(1).padStart(8)}  ${r.ratio === null ? 'baseline' : `${r.ratio.toFixed(3)}×`}`,
    );
  }
  lines.push('targets');
  for (const t of report.targets) {
    lines.push(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: ${t.ratio.toFixed(3)}× (limit ${t.limit}×)`);
  }
  return lines.join('\n');
}
