import type { EventEnvelope, StoredEvent } from '@thumbforge/contracts';
import type { KafkaMessage, Message } from 'kafkajs';
import { EVENT_TYPE_HEADER } from './partition-fetch.js';

export { EVENT_TYPE_HEADER };

/** Strips a position an envelope may carry when it is appended again. */
export function bareEnvelope(event: EventEnvelope | StoredEvent): EventEnvelope {
  if (!('topic' in event) && !('partition' in event) && !('offset' in event)) return event;
  const { topic: _topic, partition: _partition, offset: _offset, ...envelope } = event as StoredEvent;
  return envelope;
}

/**
 * The value is the whole envelope as JSON, so a record read back equals what was appended. The event
 * id, type and the envelope's transport headers (W3C trace context) are copied into Kafka headers too,
 * for tools that inspect topics without parsing values.
 */
export function toMessage(envelope: EventEnvelope, key: string, partition: number): Message {
  return {
    key,
    partition,
    value: Buffer.from(JSON.stringify(envelope)),
    headers: { ...envelope.headers, 'event-id': envelope.id, [EVENT_TYPE_HEADER]: envelope.type },
  };
}

export function fromMessage(topic: string, partition: number, message: KafkaMessage): StoredEvent {
  if (!message.value) {
    throw new Error(`record ${topic}:${partition}@${message.offset} has no value`);
  }
  return storedFromValue(message.value.toString('utf8'), topic, partition, Number(message.offset));
}

/**
 * The stored event a record's value (the appended envelope, as JSON) is: the parsed object, given its
 * position in place. A replay makes one per event; a copy of its fields costs a third more.
 */
export function storedFromValue(
  value: string,
  topic: string,
  partition: number,
  offset: number,
): StoredEvent {
  const event = JSON.parse(value) as StoredEvent;
  event.topic = topic;
  event.partition = partition;
  event.offset = offset;
  return event;
}
