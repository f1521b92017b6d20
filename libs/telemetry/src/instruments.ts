import { metrics, type Attributes, type Counter, type Histogram, type Meter } from '@opentelemetry/api';
import { METRICS, type MetricDefinition } from './catalogue.js';

export const INSTRUMENTATION_SCOPE = '@thumbforge/telemetry';

export function meter(): Meter {
  return metrics.getMeter(INSTRUMENTATION_SCOPE);
}

function histogram(m: Meter, definition: MetricDefinition): Histogram {
  return m.createHistogram(definition.name, {
    unit: definition.unit,
    description: definition.description,
    ...(definition.buckets ? { advice: { explicitBucketBoundaries: [...definition.buckets] } } : {}),
  });
}

function counter(m: Meter, definition: MetricDefinition): Counter {
  return m.createCounter(definition.name, { unit: definition.unit, description: definition.description });
}

interface Instruments {
  httpServerDuration: Histogram;
  generations: Counter;
  renderDuration: Histogram;
  creditsConsumed: Counter;
  webhookAttempts: Counter;
}

let instruments: Instruments | undefined;

/**
 * Created on first use from the global meter provider: the API's no-op meter while telemetry is off,
 * whose instruments record nothing.
 */
export function instrumentsOf(): Instruments {
  if (instruments) return instruments;
  const m = meter();
  instruments = {
    httpServerDuration: histogram(m, METRICS.httpServerDuration),
    generations: counter(m, METRICS.generations),
    renderDuration: histogram(m, METRICS.renderDuration),
    creditsConsumed: counter(m, METRICS.creditsConsumed),
    webhookAttempts: counter(m, METRICS.webhookAttempts),
  };
  return instruments;
}

/** A meter provider was registered or removed: instruments are made again from the new one. */
export function resetInstruments(): void {
  instruments = undefined;
}

export interface GenerationAttributes extends Attributes {
  format: string;
  model: string;
  status: 'succeeded' | 'failed';
}

export function recordRenderDuration(attributes: GenerationAttributes, seconds: number): void {
  instrumentsOf().renderDuration.record(seconds, attributes);
}

export function countGeneration(attributes: GenerationAttributes): void {
  instrumentsOf().generations.add(1, attributes);
}

export function countCredits(kind: 'captured' | 'released', plan: string, amount: number): void {
  instrumentsOf().creditsConsumed.add(amount, { kind, plan });
}

export function countWebhookAttempt(outcome: 'success' | 'failure' | 'exhausted'): void {
  instrumentsOf().webhookAttempts.add(1, { outcome });
}
