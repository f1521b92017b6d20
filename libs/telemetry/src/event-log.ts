import { context, propagation, ROOT_CONTEXT, SpanKind, trace, type Attributes } from '@opentelemetry/api';
import type { EventEnvelope, StoredEvent } from '@thumbforge/contracts';
import type { AppendOptions, EventLog, SubscriptionOptions } from '@thumbforge/event-log';
import { consumerLag } from './observers.js';
import { recordFailure, tracer } from './spans.js';

export interface TracedEventLogOptions {
  /** `messaging.system` (default `kafka`). */
  system?: string;
}

/**
 * The event log with the trace carried across it: every append is a producer span whose W3C trace
 * context goes into each envelope's `headers` (Kafka record headers in cluster mode), and every
 * handled event runs in a consumer span whose parent is that context, linked to it as well. An append
 * made while handling an event is therefore a child of the consumer span, and a job's trace follows it
 * from the gateway through every service. Everything else passes through to the log untouched.
 */
export function tracedEventLog(log: EventLog, options: TracedEventLogOptions = {}): EventLog {
  const system = options.system ?? 'kafka';

  async function append(topic: string, events: EventEnvelope[], appendOptions?: AppendOptions) {
    const attributes: Attributes = {
      'messaging.system': system,
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      'messaging.destination.name': topic,
      'messaging.batch.message_count': events.length,
    };
    if (events.length === 1) {
      attributes['messaging.message.id'] = events[0]!.id;
      attributes['thumbforge.event.type'] = events[0]!.type;
    }
    const span = tracer().startSpan(`send ${topic}`, { kind: SpanKind.PRODUCER, attributes });
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), carrier);
    // A non-recording span injects nothing: such envelopes stay exactly as they were.
    const stamped =
      Object.keys(carrier).length === 0
        ? events
        : events.map((event) => ({ ...event, headers: { ...event.headers, ...carrier } }));
    try {
      const stored = await log.append(topic, stamped, appendOptions);
      const first = stored[0];
      if (first) {
        span.setAttributes({
          'messaging.destination.partition.id': String(first.partition),
          'messaging.kafka.offset': first.offset,
        });
      }
      return stored;
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  async function handleTraced(subscription: SubscriptionOptions, event: StoredEvent): Promise<void> {
    // From the root: whatever context the consumer's own machinery carries is not the event's.
    const producer = propagation.extract(ROOT_CONTEXT, event.headers ?? {});
    const producerSpan = trace.getSpanContext(producer);
    const span = tracer().startSpan(
      `process ${event.topic}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': system,
          'messaging.operation.type': 'process',
          'messaging.operation.name': 'process',
          'messaging.destination.name': event.topic,
          'messaging.destination.partition.id': String(event.partition),
          'messaging.kafka.offset': event.offset,
          'messaging.consumer.group.name': subscription.group,
          'messaging.message.id': event.id,
          'thumbforge.event.type': event.type,
        },
        links: producerSpan ? [{ context: producerSpan }] : [],
      },
      producer,
    );
    try {
      await context.with(trace.setSpan(producer, span), () => subscription.handle(event));
      consumerLag()?.handled(subscription.group, event.topic, event.partition, event.offset);
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  const subscribe: EventLog['subscribe'] = (subscription) =>
    log.subscribe({ ...subscription, handle: (event) => handleTraced(subscription, event) });

  return new Proxy(log, {
    get(target, property) {
      if (property === 'append') return append;
      if (property === 'subscribe') return subscribe;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
