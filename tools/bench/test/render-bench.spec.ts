import { describe, expect, it } from 'vitest';
import { chooseChromium, CHROMIUM, formatReport, runRenderBench, type ContenderId } from '../src/index.js';

describe('bench:render smoke run (one iteration, no Chromium)', () => {
  // Three cases and six script rows: more renders than the default per-test limit allows on a busy machine.
  it(
    'measures every local contender of every case and prints one block per case',
    { timeout: 120_000 },
    async () => {
      const report = await runRenderBench({
        iterations: 1,
        warmup: 0,
        launchIterations: 0,
        chromiumPath: null,
        chromiumSkipReason: 'smoke run',
      });

      expect(report.cases.map((c) => [c.id, c.width, c.height, c.outputFormat])).toEqual([
        ['youtube-title', 1280, 720, 'webp'],
        ['youtube-photo-logo', 1280, 720, 'webp'],
        ['instagram-hd', 2048, 2048, 'png'],
      ]);
      for (const c of report.cases) {
        const ids: ContenderId[] = ['floor', 'engine', 'satori', 'chromium-warm', 'chromium-launch'];
        if (c.outputFormat === 'webp') ids.push('default-webp');
        expect(c.measurements.map((m) => m.id)).toEqual(ids);
        for (const m of c.measurements) {
          if (m.id.startsWith('chromium')) {
            expect(m).toMatchObject({ medianMs: null, bytes: null, samples: 0, skipped: 'smoke run' });
          } else {
            expect(m.samples).toBe(1);
            expect(m.medianMs).toBeGreaterThan(0);
            expect(m.bytes).toBeGreaterThan(1000);
          }
        }
        expect(c.targets).toHaveLength(c.outputFormat === 'webp' ? 5 : 3);
        const chromiumTarget = c.targets.find((t) => t.label.includes('chromium'))!;
        expect(chromiumTarget).toMatchObject({ measured: 'n/a', pass: null });
        for (const t of c.targets.filter((t) => t !== chromiumTarget)) {
          expect(t.measured).toMatch(/^\d+\.\d{2}x$/);
          expect(typeof t.pass).toBe('boolean');
        }
      }

      // One row per script against Latin, each with its verdict.
      expect(report.scripts.map((r) => r.script)).toEqual([
        'Latin',
        'Arabic',
        'Devanagari',
        'Bengali',
        'CJK',
        'emoji-heavy',
      ]);
      for (const r of report.scripts) {
        expect(r.samples).toBe(3);
        expect(r.medianMs).toBeGreaterThan(0);
        expect(r.pass).toBe(r.overLatin <= 1.2);
      }
      expect(report.scripts[0]!.overLatin).toBe(1);

      const lines = formatReport(report).split('\n');
      const byScript = lines.findIndex((l) => l.startsWith('engine by script'));
      expect(byScript).toBeGreaterThan(0);
      expect(lines.slice(byScript + 3, byScript + 9).every((l) => /\d+\.\d{2}\s+(PASS|FAIL)$/.test(l))).toBe(
        true,
      );
      expect(lines[0]).toMatch(/^render benchmark: median of 1 renders after 0 warm-up rounds/);
      for (const c of report.cases) {
        const start = lines.indexOf(`${c.label} (${c.width}x${c.height})`);
        expect(start).toBeGreaterThan(0);
        expect(lines[start + 1]).toMatch(/^contender\s+median ms\s+bytes\s+x floor\s+engine faster by$/);
        const block = lines.slice(start + 2, start + 2 + c.measurements.length);
        expect(block.map((l) => l.startsWith(c.measurements[block.indexOf(l)]!.label))).not.toContain(false);
        expect(block.filter((l) => l.includes('skipped: smoke run'))).toHaveLength(2);
        expect(lines[start + 2 + c.measurements.length]).toBe('  targets');
        const targetLines = lines.slice(
          start + 3 + c.measurements.length,
          start + 3 + c.measurements.length + c.targets.length,
        );
        expect(targetLines.every((l) => /(PASS|FAIL|n\/a)$/.test(l))).toBe(true);
      }
    },
  );
});

describe('chooseChromium', () => {
  it("uses Debian's Chromium when it is there", () => {
    expect(chooseChromium(false, (p) => p === CHROMIUM)).toEqual({ path: CHROMIUM });
  });

  it('skips the Chromium rows and says how to install it when it is missing', () => {
    const choice = chooseChromium(false, () => false);
    expect(choice).toMatchObject({ path: null, skipReason: 'no /usr/bin/chromium' });
    expect(choice.warning).toContain('apt-get update && apt-get install -y chromium');
  });

  it('leaves Chromium out on request', () => {
    expect(chooseChromium(true, () => true)).toEqual({ path: null, skipReason: '--no-chromium' });
  });
});
