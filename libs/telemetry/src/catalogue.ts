/**
 * Every metric the services export, once: the instruments are created from these definitions, the
 * documentation lists them, and the tests check the dashboard's and the alerts' queries against the
 * Prometheus names derived here and the catalogue against what a running cluster really exports.
 */
export type InstrumentKind = 'counter' | 'histogram' | 'gauge';

export interface MetricDefinition {
  name: string;
  kind: InstrumentKind;
  /** UCUM, as OpenTelemetry expects: `s` for seconds, `{thing}` for a count of things. */
  unit: string;
  description: string;
  attributes: readonly string[];
  /** Bucket boundaries of a histogram, in its unit. */
  buckets?: readonly number[];
  /** Which process records it. */
  recordedBy: string;
}

export const METRICS = {
  httpServerDuration: {
    name: 'http.server.request.duration',
    kind: 'histogram',
    unit: 's',
    description: 'Duration of HTTP requests served, by route template and status (health probes excluded).',
    attributes: ['http.request.method', 'http.route', 'http.response.status_code'],
    // The HTTP semantic conventions' recommended boundaries.
    buckets: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120],
    recordedBy: 'every service (the gateway serves the API)',
  },
  generations: {
    name: 'thumbforge.generations',
    kind: 'counter',
    unit: '{generation}',
    description: 'Generations finished by the rendering service, by format, model and outcome.',
    attributes: ['format', 'model', 'status'],
    recordedBy: 'rendering',
  },
  renderDuration: {
    name: 'thumbforge.render.duration',
    kind: 'histogram',
    unit: 's',
    description: 'Time to draw one thumbnail (inputs loaded, model or engine, encoded), by format and model.',
    attributes: ['format', 'model', 'status'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 45, 60],
    recordedBy: 'rendering',
  },
  creditsConsumed: {
    name: 'thumbforge.credits.consumed',
    kind: 'counter',
    unit: '{credit}',
    description: 'Credits settled by billing: captured (charged) or released (given back), by plan.',
    attributes: ['kind', 'plan'],
    recordedBy: 'billing',
  },
  webhookAttempts: {
    name: 'thumbforge.webhook.attempts',
    kind: 'counter',
    unit: '{attempt}',
    description:
      'Webhook attempts by outcome: success, failure (a retry follows) or exhausted (the last one failed).',
    attributes: ['outcome'],
    recordedBy: 'webhook-delivery',
  },
  consumerLag: {
    name: 'thumbforge.consumer.lag',
    kind: 'gauge',
    unit: '{message}',
    description: 'Events on a partition not yet handled by a consumer group (high watermark minus position).',
    attributes: ['group', 'topic', 'partition'],
    recordedBy: 'every service (Kafka consumers)',
  },
  breakerOpen: {
    name: 'thumbforge.breaker.open',
    kind: 'gauge',
    unit: '{breaker}',
    description: 'Circuit breaker state: 1 while open (calls refused), 0 when closed or half-open.',
    attributes: ['breaker'],
    recordedBy: 'every service with S3; rendering for the image model',
  },
} as const satisfies Record<string, MetricDefinition>;

export const METRIC_CATALOGUE: readonly MetricDefinition[] = Object.values(METRICS);

const UNIT_WORDS: Record<string, string> = { s: 'seconds', ms: 'milliseconds', By: 'bytes' };

export interface PrometheusSeries {
  /** The metric family name. */
  name: string;
  /** The series names a query can use (a histogram's `_bucket`, `_sum` and `_count`). */
  series: string[];
  labels: string[];
}

/**
 * The names the OpenTelemetry Collector's Prometheus exporter gives a metric (its default
 * translation: characters outside [a-zA-Z0-9_] become `_`, the unit is appended as a word unless it is
 * an annotation like `{attempt}`, counters end in `_total`, and a histogram is `_bucket`, `_sum` and
 * `_count` series). Resource attributes become the `job` (service.name) and `instance` labels.
 */
export function prometheusNames(metric: MetricDefinition): PrometheusSeries {
  const sanitize = (text: string) => text.replace(/[^a-zA-Z0-9_]/g, '_').replace(/__+/g, '_');
  let name = sanitize(metric.name);
  const unit = metric.unit.replace(/\{[^}]*\}/g, '').trim();
  if (unit) {
    const word = UNIT_WORDS[unit];
    if (!word) throw new Error(`no Prometheus unit word for ${JSON.stringify(unit)} (${metric.name})`);
    if (!name.endsWith(`_${word}`)) name = `${name}_${word}`;
  }
  if (metric.kind === 'counter' && !name.endsWith('_total')) name = `${name}_total`;
  const series = metric.kind === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name];
  return { name, series, labels: metric.attributes.map(sanitize) };
}
