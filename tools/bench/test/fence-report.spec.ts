import { describe, expect, it } from 'vitest';
import { FENCE_TARGET_RATIO, formatFenceReport } from '../src/cluster/fence.js';

const latency = (p50: number) => ({ samples: 200, p50, p90: p50 * 2, p99: p50 * 3 });

describe('bench:cluster fence rows', () => {
  it.each([
    ['within the target', 10, 11, '1.10x', 'PASS'],
    ['exactly the target', 10, 10 * FENCE_TARGET_RATIO, `${FENCE_TARGET_RATIO.toFixed(2)}x`, 'PASS'],
    ['over the target', 10, 13, '1.30x', 'FAIL'],
  ])('%s', (_name, unfenced, fenced, ratio, verdict) => {
    const lines = formatFenceReport({
      reservations: 200,
      unfenced: latency(unfenced),
      fenced: latency(fenced),
      takeover: latency(40),
    });
    expect(lines[0]).toBe(
      'billing reservation decision on Kafka + FerretDB, 200 unfenced and 200 fenced, alternating:',
    );
    expect(lines[1]).toBe(
      `  without the fence: p50 ${unfenced.toFixed(2)} ms, p90 ${(unfenced * 2).toFixed(2)} ms`,
    );
    expect(lines[3]).toBe(`  fenced/unfenced p50 ${ratio} (target <= ${FENCE_TARGET_RATIO}x): ${verdict}`);
    expect(lines[4]).toContain('p50 40.00 ms, p90 80.00 ms');
  });
});
