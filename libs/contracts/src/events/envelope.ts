import { newId } from '../ids.js';

/**
 * Every fact and command on the log travels in this envelope (DESIGN §3). `version` is the schema
 * version of `type`; consumers switch on both. Binaries never ride here: payloads carry object keys.
 */
export interface EventEnvelope<TType extends string = string, TPayload = unknown> {
  id: string;
  type: TType;
  version: number;
  aggregateId: string;
  occurredAt: string;
  correlationId: string | null;
  causationId: string | null;
  payload: TPayload;
  /**
   * The owner epoch a one-writer fact was decided under: the offset of its writer's `log.owner-fenced`
   * marker in the fact's partition. Folds drop a fact whose partition has a later marker before it
   * (its writer had lost the partition); facts without it are not fenced.
   */
  fence?: number;
  /** W3C trace context and similar transport metadata (Kafka headers in cluster mode). */
  headers?: Record<string, string>;
}

/** An envelope as read back from the log, with its position. */
export interface StoredEvent<TType extends string = string, TPayload = unknown> extends EventEnvelope<
  TType,
  TPayload
> {
  topic: string;
  partition: number;
  offset: number;
}

export interface EnvelopeOptions {
  correlationId?: string | null;
  causationId?: string | null;
  /** A deterministic id makes a re-sent command or re-derived fact recognisable as the same one. */
  id?: string;
  occurredAt?: Date;
  version?: number;
  headers?: Record<string, string>;
  fence?: number;
}

/** ISO 8601 UTC at second precision: `2026-04-27T14:30:00Z` (DESIGN §5). */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function envelope<TType extends string, TPayload>(
  type: TType,
  aggregateId: string,
  payload: TPayload,
  options: EnvelopeOptions = {},
): EventEnvelope<TType, TPayload> {
  return {
    id: options.id ?? newId('evt'),
    type,
    version: options.version ?? 1,
    aggregateId,
    occurredAt: (options.occurredAt ?? new Date()).toISOString(),
    correlationId: options.correlationId ?? null,
    causationId: options.causationId ?? null,
    payload,
    ...(options.fence !== undefined ? { fence: options.fence } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
}
