import type { EventLog } from '@thumbforge/event-log';
import { KafkaEventLog } from '@thumbforge/event-log/kafka';
import { S3ObjectStore } from '@thumbforge/object-store/s3';
import { createLogger, systemClock, type Config, type Infrastructure } from '@thumbforge/platform';
import type { ProjectionStore } from '@thumbforge/projection-store';
import { MongoProjectionStore } from '@thumbforge/projection-store/mongo';
import { instrumentPorts } from '@thumbforge/telemetry';
import { kafkaConnection } from './kafka-connection.js';
import type { ClusterSettings } from './settings.js';

/**
 * Opens the real adapters for one service process: its own Kafka client and consumer groups, its
 * read models under a collection prefix of its own (services share no tables), and the two buckets.
 * If one of them cannot be opened, the ones already open are closed before the error propagates.
 */
export async function openClusterInfrastructure(
  config: Config,
  settings: ClusterSettings,
  serviceName: string,
): Promise<Infrastructure> {
  const logger = createLogger(config, { component: serviceName });
  const log = new KafkaEventLog({
    ...kafkaConnection(settings.kafka),
    clientId: `${settings.kafka.clientId}-${serviceName}`,
    partitions: settings.kafka.partitions,
    sessionTimeoutMs: settings.kafka.sessionTimeoutMs,
    logger: logger.child({ adapter: 'kafka' }),
  });
  const projections = new MongoProjectionStore({
    uri: settings.mongo.uri,
    collectionPrefix: `${serviceName}_`,
  });
  const { s3 } = settings;
  const objects = new S3ObjectStore({
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    region: s3.region,
    ...(s3.credentials ? { credentials: s3.credentials } : {}),
    buckets: { public: s3.publicBucket, private: s3.privateBucket },
    publicBaseUrl: config.cdnUrl,
    publicRead: s3.publicRead,
    onBreakerChange: (state) => logger.warn({ state }, `object store circuit ${state}`),
  });

  const opened: Array<EventLog | ProjectionStore | S3ObjectStore> = [];
  try {
    await log.open();
    opened.push(log);
    await projections.open();
    opened.push(projections);
    await objects.open();
  } catch (error) {
    await Promise.allSettled(opened.map((port) => port.close()));
    throw error;
  }
  // Kafka, MongoDB and S3 spans while telemetry is on; these very adapters otherwise.
  return instrumentPorts(
    { config, log, projections, objects, clock: systemClock, logger },
    {
      collectionPrefix: `${serviceName}_`,
      mongoUri: settings.mongo.uri,
      buckets: { public: s3.publicBucket, private: s3.privateBucket },
    },
  );
}
