import { envelope, TOPICS, type EventEnvelope, type StoredEvent } from '@thumbforge/contracts';

export const DEAD_LETTER_TOPIC = TOPICS.deadLetter;
export const DEAD_LETTER_EVENT_TYPE = 'log.dead-lettered';

/** An event a consumer group could not handle within its attempts, parked with where it came from. */
export interface DeadLetteredV1 {
  group: string;
  topic: string;
  partition: number;
  offset: number;
  attempts: number;
  /** The last error's message. */
  error: string;
  event: EventEnvelope;
}

export type DeadLetterEvent = EventEnvelope<typeof DEAD_LETTER_EVENT_TYPE, DeadLetteredV1>;

function errorMessage(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Every adapter dead-letters the same way: keyed like the original, caused by it. */
export function deadLetterEvent(
  group: string,
  event: StoredEvent,
  error: unknown,
  attempts: number,
): DeadLetterEvent {
  const { topic, partition, offset, ...original } = event;
  return envelope(
    DEAD_LETTER_EVENT_TYPE,
    event.aggregateId,
    { group, topic, partition, offset, attempts, error: errorMessage(error), event: original },
    { correlationId: event.correlationId, causationId: event.id },
  );
}

export function isDeadLetterEvent<E extends EventEnvelope>(event: E): event is E & DeadLetterEvent {
  return event.type === DEAD_LETTER_EVENT_TYPE;
}
