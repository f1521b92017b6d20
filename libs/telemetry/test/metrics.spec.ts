import type { MetricData } from '@opentelemetry/sdk-metrics';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import { envelope } from '@thumbforge/contracts';
import { deferred, MemoryEventLog } from '@thumbforge/event-log/testing';
import { createBreaker } from '@thumbforge/resilience';
import { afterAll, describe, expect, it } from 'vitest';
import {
  countCredits,
  countGeneration,
  countWebhookAttempt,
  METRIC_CATALOGUE,
  prometheusNames,
  recordRenderDuration,
  tracedEventLog,
  type MetricDefinition,
} from '../src/index.js';
import { instrumentsOf } from '../src/instruments.js';
import { publishBatch, startInMemoryTelemetry } from './support.js';

const telemetry = await startInMemoryTelemetry('test');
afterAll(() => telemetry.stop());

const KINDS: Record<MetricDefinition['kind'], DataPointType> = {
  counter: DataPointType.SUM,
  histogram: DataPointType.HISTOGRAM,
  gauge: DataPointType.GAUGE,
};

function metric(metrics: MetricData[], name: string): MetricData {
  const found = metrics.find((m) => m.descriptor.name === name);
  if (!found) throw new Error(`metric ${name} was not exported (${metrics.map((m) => m.descriptor.name)})`);
  return found;
}

describe('the metric catalogue', () => {
  it('is what the instruments export: names, types, units and attribute keys', async () => {
    const log = tracedEventLog(new MemoryEventLog());
    const handled = deferred<void>();
    const subscription = await log.subscribe({
      group: 'rendering',
      topics: ['thumbforge.billing'],
      from: 'committed',
      handle: async () => handled.resolve(),
    });
    // The subscription reports the fetched batch before it hands out its first event.
    publishBatch({
      group: 'rendering',
      topic: 'thumbforge.billing',
      partition: 0,
      highWatermark: '5',
      firstOffset: '0',
    });
    await log.append('thumbforge.billing', [envelope('billing.credits-reserved', 'acc_1', {})]);
    await handled.promise;
    await subscription.close();
    const breaker = createBreaker(
      'image-model',
      async () => 1,
      { volumeThreshold: 1, resetTimeoutMs: 1000, windowMs: 1000 },
      () => false,
    );
    recordRenderDuration({ format: 'youtube', model: 'hd', status: 'succeeded' }, 0.2);
    countGeneration({ format: 'youtube', model: 'hd', status: 'succeeded' });
    countCredits('captured', 'pro', 3);
    countWebhookAttempt('success');
    instrumentsOf().httpServerDuration.record(0.01, {
      'http.request.method': 'GET',
      'http.route': '/v1/jobs/:id',
      'http.response.status_code': 200,
    });

    const metrics = await telemetry.metrics();
    breaker.shutdown();
    for (const definition of METRIC_CATALOGUE) {
      const exported = metric(metrics, definition.name);
      expect(exported.dataPointType, definition.name).toBe(KINDS[definition.kind]);
      expect(exported.descriptor.unit, definition.name).toBe(definition.unit);
      const keys = new Set(exported.dataPoints.flatMap((point) => Object.keys(point.attributes)));
      expect([...keys].sort(), definition.name).toEqual([...definition.attributes].sort());
    }
    // One event handled of five on the partition.
    const lag = metric(metrics, 'thumbforge.consumer.lag').dataPoints.find(
      (point) => point.attributes.group === 'rendering',
    );
    expect(lag?.value).toBe(4);
    const breakers = metric(metrics, 'thumbforge.breaker.open').dataPoints;
    expect(breakers.map((point) => [point.attributes.breaker, point.value])).toContainEqual([
      'image-model',
      0,
    ]);
    expect(metric(metrics, 'thumbforge.credits.consumed').dataPoints[0]?.value).toBe(3);
  });

  it('gives each metric the Prometheus names the collector exports', () => {
    const names = Object.fromEntries(METRIC_CATALOGUE.map((m) => [m.name, prometheusNames(m)]));
    expect(names['http.server.request.duration']).toEqual({
      name: 'http_server_request_duration_seconds',
      series: [
        'http_server_request_duration_seconds_bucket',
        'http_server_request_duration_seconds_sum',
        'http_server_request_duration_seconds_count',
      ],
      labels: ['http_request_method', 'http_route', 'http_response_status_code'],
    });
    expect(names['thumbforge.generations']?.series).toEqual(['thumbforge_generations_total']);
    expect(names['thumbforge.credits.consumed']?.series).toEqual(['thumbforge_credits_consumed_total']);
    expect(names['thumbforge.webhook.attempts']?.series).toEqual(['thumbforge_webhook_attempts_total']);
    expect(names['thumbforge.render.duration']?.name).toBe('thumbforge_render_duration_seconds');
    expect(names['thumbforge.consumer.lag']?.series).toEqual(['thumbforge_consumer_lag']);
    expect(names['thumbforge.breaker.open']?.series).toEqual(['thumbforge_breaker_open']);
  });
});
