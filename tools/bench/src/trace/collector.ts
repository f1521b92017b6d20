import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as the timeline needs it; times in epoch milliseconds. */
export interface CollectedSpan {
  service: string;
  name: string;
  traceId: string;
  startMs: number;
  endMs: number;
}

interface OtlpValue {
  stringValue?: string;
}
interface OtlpSpan {
  name: string;
  traceId: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}
/** The part of an OTLP/JSON `ExportTraceServiceRequest` read here. */
export interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const nanosToMs = (nanos: string) => Number(BigInt(nanos) / 1000n) / 1000;

/** The spans of one OTLP/JSON export, each with its process's `service.name`. */
export function spansOf(body: OtlpTraces): CollectedSpan[] {
  const spans: CollectedSpan[] = [];
  for (const resource of body.resourceSpans ?? []) {
    const service =
      resource.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? 'unknown';
    for (const scope of resource.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          service,
          name: span.name,
          traceId: span.traceId,
          startMs: nanosToMs(span.startTimeUnixNano),
          endMs: nanosToMs(span.endTimeUnixNano),
        });
      }
    }
  }
  return spans;
}

export interface SpanCollector {
  /** What the processes' `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set to. */
  endpoint: string;
  spans: CollectedSpan[];
  close(): Promise<void>;
}

/**
 * A stand-in for an OpenTelemetry Collector's OTLP/HTTP receiver (JSON encoding, traces only) on a
 * loopback port, keeping every span it is sent.
 */
export async function startSpanCollector(): Promise<SpanCollector> {
  const spans: CollectedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        spans.push(...spansOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
