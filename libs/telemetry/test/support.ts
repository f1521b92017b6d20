import { channel } from 'node:diagnostics_channel';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import {
  KAFKA_BATCH_CHANNEL,
  shutdownTelemetry,
  startTelemetry,
  type KafkaBatchMessage,
} from '../src/index.js';

/** Telemetry started with in-memory exporters: spans as they end, metrics on demand. */
export async function startInMemoryTelemetry(service: string) {
  const spans = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter: spans });
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    // Collected by the tests themselves.
    exportIntervalMillis: 3_600_000,
  });
  if (!(await startTelemetry(service, { spanProcessors: [processor], metricReaders: [reader] })))
    throw new Error('telemetry did not start');
  return {
    /** Ended spans; an export waits for the resource's detected attributes, hence the flush. */
    async spans(): Promise<ReadableSpan[]> {
      await processor.forceFlush();
      return spans.getFinishedSpans();
    },
    reset: () => spans.reset(),
    async metrics(): Promise<MetricData[]> {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    },
    stop: () => shutdownTelemetry(),
  };
}

/** What the Kafka subscription publishes for each fetched batch. */
export function publishBatch(message: KafkaBatchMessage): void {
  channel(KAFKA_BATCH_CHANNEL).publish(message);
}
