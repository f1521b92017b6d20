import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { METRIC_CATALOGUE, prometheusNames } from '../src/index.js';

const DEPLOY = new URL('../../../deploy/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, DEPLOY), 'utf8');

/** Every series name and label the collector produces from the catalogue. */
const catalogue = METRIC_CATALOGUE.map(prometheusNames);
const SERIES = new Set(catalogue.flatMap((metric) => metric.series));
/** Labels of the catalogue plus the ones Prometheus and the collector add. */
const LABELS = new Set([...catalogue.flatMap((metric) => metric.labels), 'job', 'instance', 'le']);

/** PromQL words that are not metric names. */
const PROMQL = new Set([
  'sum',
  'max',
  'min',
  'avg',
  'count',
  'rate',
  'irate',
  'increase',
  'histogram_quantile',
  'clamp_min',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
]);

/** The metric names and label names an expression uses. */
function parsePromQL(expr: string): { metrics: string[]; labels: string[] } {
  const labels: string[] = [];
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const [, matchers] of withoutStrings.matchAll(/\{([^}]*)\}/g)) {
    for (const [, name] of matchers!.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g))
      labels.push(name!);
  }
  for (const [, grouping] of withoutStrings.matchAll(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g)) {
    labels.push(
      ...grouping!
        .split(',')
        .map((label) => label.trim())
        .filter(Boolean),
    );
  }
  const bare = withoutStrings
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring)\s*\([^)]*\)/g, '')
    .replace(/\$\{?\w+\}?/g, '');
  const metrics = (bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((word) => !PROMQL.has(word));
  return { metrics, labels };
}

function expectKnown(expr: string, where: string): void {
  const { metrics, labels } = parsePromQL(expr);
  expect(metrics.length, `${where} queries no metric`).toBeGreaterThan(0);
  for (const metric of metrics) expect(SERIES, `${where}: ${metric}`).toContain(metric);
  for (const label of labels) expect(LABELS, `${where}: label ${label}`).toContain(label);
}

describe('PromQL parsing', () => {
  it('finds metric and label names, not functions, ranges, strings or variables', () => {
    expect(
      parsePromQL(
        'histogram_quantile(0.99, sum by (le, http_route) (rate(a_bucket{code=~"5..", x!="y"}[$__rate_interval]))) / b_total',
      ),
    ).toEqual({ metrics: ['a_bucket', 'b_total'], labels: ['code', 'x', 'le', 'http_route'] });
  });

  it('catches a name the services do not export', () => {
    expect(() => expectKnown('rate(http_requests_total[5m])', 'example')).toThrow(/http_requests_total/);
    expect(() => expectKnown('rate(thumbforge_generations_total{format_name="x"}[5m])', 'example')).toThrow(
      /format_name/,
    );
  });
});

describe('deploy/grafana/thumbforge-dashboard.json', () => {
  interface Panel {
    id: number;
    type: string;
    title: string;
    datasource?: { type: string; uid: string };
    gridPos?: { x: number; y: number; w: number; h: number };
    targets?: Array<{ refId: string; expr: string; datasource?: { uid: string } }>;
  }
  const dashboard = JSON.parse(read('grafana/thumbforge-dashboard.json')) as {
    uid: string;
    title: string;
    panels: Panel[];
    templating: { list: Array<{ name: string; type: string; query: string }> };
  };
  const graphs = dashboard.panels.filter((panel) => panel.type !== 'row');

  it('is a dashboard with the Prometheus datasource as a variable', () => {
    expect(dashboard.uid).toBe('thumbforge-overview');
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
  });

  it('has the panels operations need, each on the datasource variable with queries', () => {
    expect(graphs.map((panel) => panel.title)).toEqual([
      'Request rate by route',
      'Error rate',
      'Latency p50 by route',
      'Latency p99 by route',
      'Generations by format and model',
      'Credits settled per minute',
      'Render duration p50 / p99',
      'Webhook attempts by outcome',
      'Webhook failure rate',
      'Consumer lag by group',
      'Circuit breakers open',
    ]);
    for (const panel of graphs) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.gridPos, panel.title).toBeDefined();
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets!) {
        expect(target.refId, panel.title).toMatch(/^[A-Z]$/);
        expect(target.datasource?.uid, panel.title).toBe('${datasource}');
      }
    }
  });

  it('queries only metrics and labels the services export', () => {
    const used = new Set<string>();
    for (const panel of graphs) {
      for (const target of panel.targets!) {
        expectKnown(target.expr, `panel "${panel.title}"`);
        for (const metric of parsePromQL(target.expr).metrics) used.add(metric);
      }
    }
    // Every metric of the catalogue is on the dashboard.
    for (const metric of catalogue) {
      expect(
        metric.series.some((series) => used.has(series)),
        `${metric.name} on the dashboard`,
      ).toBe(true);
    }
  });
});

describe('deploy/prometheus/alerts.yaml', () => {
  const rules = parse(read('prometheus/alerts.yaml')) as {
    groups: Array<{
      name: string;
      rules: Array<{
        alert: string;
        expr: string;
        for: string;
        labels: { severity: string };
        annotations: { summary: string };
      }>;
    }>;
  };
  const alerts = rules.groups.flatMap((group) => group.rules);

  it('alerts on 5xx errors, webhook failures, consumer lag and open breakers', () => {
    expect(alerts.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining([
        'ThumbforgeHighErrorRate',
        'ThumbforgeWebhookFailureRate',
        'ThumbforgeConsumerLag',
        'ThumbforgeCircuitBreakerOpen',
      ]),
    );
  });

  it('gives every rule a duration, a severity and a summary over exported metrics', () => {
    for (const rule of alerts) {
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning', 'info'], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
      expectKnown(rule.expr, `alert ${rule.alert}`);
    }
  });
});

describe('deploy/otel-collector/config.yaml', () => {
  const config = parse(read('otel-collector/config.yaml')) as {
    receivers: Record<string, unknown>;
    processors: Record<string, unknown>;
    exporters: Record<string, unknown>;
    extensions?: Record<string, unknown>;
    service: {
      extensions?: string[];
      pipelines: Record<string, { receivers: string[]; processors: string[]; exporters: string[] }>;
    };
  };

  it('references only receivers, processors, exporters and extensions it defines', () => {
    for (const [name, pipeline] of Object.entries(config.service.pipelines)) {
      for (const receiver of pipeline.receivers) expect(config.receivers, name).toHaveProperty([receiver]);
      for (const processor of pipeline.processors)
        expect(config.processors, name).toHaveProperty([processor]);
      for (const exporter of pipeline.exporters) expect(config.exporters, name).toHaveProperty([exporter]);
    }
    for (const extension of config.service.extensions ?? [])
      expect(config.extensions).toHaveProperty([extension]);
  });

  it('receives OTLP over gRPC and HTTP and sends metrics to Prometheus and traces over OTLP', () => {
    expect(config.receivers.otlp).toMatchObject({ protocols: { grpc: {}, http: {} } });
    const { traces, metrics } = config.service.pipelines;
    expect(metrics?.exporters).toContain('prometheus');
    expect(traces?.exporters.some((exporter) => exporter.split('/')[0] === 'otlp')).toBe(true);
    for (const pipeline of [traces!, metrics!]) {
      // The memory limiter must see data first, the batch processor last.
      expect(pipeline.processors[0]).toBe('memory_limiter');
      expect(pipeline.processors.at(-1)).toBe('batch');
    }
  });
});
