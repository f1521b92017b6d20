import { describe, expect, it } from 'vitest';
import { spansOf, type CollectedSpan } from '../src/trace/collector.js';
import { requestTimeline } from '../src/trace/timeline.js';

const ROOT = 'POST /v1/generate';

/** A span of `trace` from `start` to `end` ms. */
const span = (
  traceId: string,
  service: string,
  name: string,
  startMs: number,
  endMs: number,
): CollectedSpan => ({
  service,
  name,
  traceId,
  startMs,
  endMs,
});

describe('requestTimeline', () => {
  it('gives each step its median start after the root and its median duration, in order of start', () => {
    const spans = [
      // Three requests, listed out of order; times are epoch-like and differ per request.
      span('a', 'gw', ROOT, 1_000, 1_100),
      span('a', 'rendering', 'render', 1_030, 1_080),
      span('a', 'gw', 'send billing', 1_005, 1_010),
      span('b', 'gw', ROOT, 5_000, 5_120),
      span('b', 'gw', 'send billing', 5_006, 5_012),
      span('b', 'rendering', 'render', 5_040, 5_100),
      span('c', 'rendering', 'render', 9_020, 9_060),
      span('c', 'gw', ROOT, 9_000, 9_090),
      span('c', 'gw', 'send billing', 9_004, 9_007),
    ];
    expect(requestTimeline(spans, ROOT)).toEqual([
      { step: `gw ${ROOT}`, startMs: 0, durationMs: 100, requests: 3 },
      { step: 'gw send billing', startMs: 5, durationMs: 5, requests: 3 },
      { step: 'rendering render', startMs: 30, durationMs: 50, requests: 3 },
    ]);
  });

  it.each([
    [
      'numbers repeated spans of a request in their order',
      2,
      ['gw ' + ROOT, 'billing update #1', 'billing update #2'],
    ],
    ['drops a step fewer than half the requests have', 3, ['gw ' + ROOT, 'billing update #1']],
  ])('%s', (_name, requests, steps) => {
    const spans: CollectedSpan[] = [];
    for (let r = 0; r < requests; r++) {
      const t = r * 1_000;
      spans.push(span(`t${r}`, 'gw', ROOT, t, t + 50), span(`t${r}`, 'billing', 'update', t + 10, t + 12));
      // Only the first request updates twice (with three requests, one in three: left out).
      if (r === 0 || requests === 2) spans.push(span(`t${r}`, 'billing', 'update', t + 20, t + 21));
    }
    expect(requestTimeline(spans, ROOT).map((s) => s.step)).toEqual(steps);
  });

  it('leaves out traces without the root and requests that began before the measured run', () => {
    const spans = [
      span('warm', 'gw', ROOT, 100, 900),
      span('warm', 'rendering', 'render', 200, 800),
      span('orphan', 'billing', 'savePositions', 1_500, 1_510),
      span('real', 'gw', ROOT, 2_000, 2_060),
      span('real', 'rendering', 'render', 2_010, 2_050),
    ];
    expect(requestTimeline(spans, ROOT, 1_000)).toEqual([
      { step: `gw ${ROOT}`, startMs: 0, durationMs: 60, requests: 1 },
      { step: 'rendering render', startMs: 10, durationMs: 40, requests: 1 },
    ]);
  });

  it('leaves out requests that began at the end of the window and after', () => {
    const spans = [
      span('sync', 'gw', ROOT, 1_000, 1_060),
      span('sync', 'rendering', 'render', 1_010, 1_050),
      span('async', 'gw', ROOT, 2_000, 2_010),
      span('async', 'webhook-delivery', 'POST', 2_090, 2_095),
    ];
    expect(requestTimeline(spans, ROOT, 0, 2_000).map((s) => s.step)).toEqual([
      `gw ${ROOT}`,
      'rendering render',
    ]);
    expect(requestTimeline(spans, ROOT, 2_000)).toEqual([
      { step: `gw ${ROOT}`, startMs: 0, durationMs: 10, requests: 1 },
      { step: 'webhook-delivery POST', startMs: 90, durationMs: 5, requests: 1 },
    ]);
  });
});

describe('spansOf', () => {
  it("reads an OTLP/JSON export's spans with their process's service name and times in ms", () => {
    const spans = spansOf({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'thumbforge-billing' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  name: 'process thumbforge.billing',
                  traceId: 'ab12',
                  startTimeUnixNano: '1795428000123456789',
                  endTimeUnixNano: '1795428000125956789',
                },
              ],
            },
          ],
        },
        { scopeSpans: [{ spans: [] }] },
      ],
    });
    expect(spans).toEqual([
      {
        service: 'thumbforge-billing',
        name: 'process thumbforge.billing',
        traceId: 'ab12',
        startMs: 1795428000123.456,
        endMs: 1795428000125.956,
      },
    ]);
  });
});
