import type { CollectedSpan } from './collector.js';
import { summarize } from '../cluster/stats.js';

/** A span that most requests have, as the median request sees it. */
export interface TimelineStep {
  /** `service span-name`, with `#n` for the n-th such span of a request when there are several. */
  step: string;
  /** Median start after the request's server span started, and median duration (ms). */
  startMs: number;
  durationMs: number;
  /** Requests that had it. */
  requests: number;
}

/**
 * Where a request's time goes: the spans of every trace whose root is `rootName` (the gateway's server
 * span), each numbered by its order among the spans of the same service and name in its trace, with
 * the median start and duration of each step over the traces. Steps that fewer than half the traces
 * have (a save that happens every few requests) are left out; the rest is ordered by median start.
 * Requests whose root started before `fromMs` (a warm-up) or at `untilMs` and after (another kind of
 * request measured next) are not counted.
 */
export function requestTimeline(
  spans: readonly CollectedSpan[],
  rootName: string,
  fromMs = -Infinity,
  untilMs = Infinity,
): TimelineStep[] {
  const traces = new Map<string, CollectedSpan[]>();
  for (const span of spans) {
    const trace = traces.get(span.traceId);
    if (trace) trace.push(span);
    else traces.set(span.traceId, [span]);
  }
  const steps = new Map<string, { starts: number[]; durations: number[] }>();
  let requests = 0;
  for (const trace of traces.values()) {
    const root = trace.find((span) => span.name === rootName);
    if (!root || root.startMs < fromMs || root.startMs >= untilMs) continue;
    requests++;
    const seen = new Map<string, number>();
    for (const span of [...trace].sort((a, b) => a.startMs - b.startMs)) {
      const base = `${span.service} ${span.name}`;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      const key = `${base} #${n}`;
      const step = steps.get(key) ?? { starts: [], durations: [] };
      step.starts.push(span.startMs - root.startMs);
      step.durations.push(span.endMs - span.startMs);
      steps.set(key, step);
    }
  }
  return [...steps]
    .filter(([, step]) => step.starts.length * 2 >= requests)
    .map(([key, step]) => ({
      step: key.endsWith(' #1') && !steps.has(key.replace(/#1$/, '#2')) ? key.slice(0, -3) : key,
      startMs: summarize(step.starts).p50,
      durationMs: summarize(step.durations).p50,
      requests: step.starts.length,
    }))
    .sort((a, b) => a.startMs - b.startMs || a.step.localeCompare(b.step));
}
