import { describe, expect, it } from 'vitest';
import { formatApiReport, runApiBench } from '../src/index.js';

/** A tiny run of `npm run bench:api` against the built embedded service: the report's shape only. */
describe('API bench', () => {
  it('measures every row and states each target', async () => {
    const report = await runApiBench({ rounds: 2, warmup: 0 });
    expect(report.rows.map((r) => [r.name, r.latency.samples])).toEqual([
      ['generate, no key', 2],
      ['generate, fresh Idempotency-Key', 2],
      ['generate, replayed key', 2],
      ['signed URL, first fetch (render)', 2],
      ['signed URL, cached fetch', 2],
      ['signed URL, If-None-Match → 304', 2],
    ]);
    expect(report.targets).toHaveLength(3);
    const text = formatApiReport(report);
    expect(text.match(/^ {2}(PASS|FAIL) {2}/gm)).toHaveLength(3);
    expect(text).toMatch(/generate, fresh Idempotency-Key\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+×/);
  }, 120_000);
});
