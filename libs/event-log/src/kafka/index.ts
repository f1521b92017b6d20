export {
  EventLogClosedError,
  KafkaEventLog,
  type KafkaEventLogLogger,
  type KafkaEventLogOptions,
  type KafkaSaslOptions,
} from './kafka-event-log.js';
export { createKeyPartitioner } from './partitioner.js';
export { EVENT_TOPIC_CONFIG, type TopicSettings } from './topics.js';
