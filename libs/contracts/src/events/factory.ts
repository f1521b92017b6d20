import { envelope, type EnvelopeOptions, type EventEnvelope } from './envelope.js';
import type { EventPayloads, EventType } from './catalog.js';

/** Builds a catalogue event with its payload type checked against the catalogue. */
export function makeEvent<K extends EventType>(
  type: K,
  aggregateId: string,
  payload: EventPayloads[K],
  options?: EnvelopeOptions,
): EventEnvelope<K, EventPayloads[K]> {
  return envelope(type, aggregateId, payload, options);
}
