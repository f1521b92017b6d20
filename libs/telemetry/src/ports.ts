import type { EventLog } from '@thumbforge/event-log';
import type { Bucket, ObjectStore } from '@thumbforge/object-store';
import type { ProjectionStore } from '@thumbforge/projection-store';
import { tracedEventLog } from './event-log.js';
import { telemetryActive } from './sdk.js';
import { databaseOf, tracedObjectStore, tracedProjectionStore } from './stores.js';

export interface Ports {
  log: EventLog;
  projections: ProjectionStore;
  objects: ObjectStore;
}

export interface ClusterPortsDescription {
  /** The MongoDB adapter's collection prefix for this service. */
  collectionPrefix: string;
  mongoUri: string;
  buckets: Record<Bucket, string>;
}

/**
 * The cluster's ports with Kafka, MongoDB and S3 spans while telemetry is on; the very same objects
 * while it is off.
 */
export function instrumentPorts<T extends Ports>(ports: T, cluster: ClusterPortsDescription): T {
  if (!telemetryActive()) return ports;
  const database = databaseOf(cluster.mongoUri);
  return {
    ...ports,
    log: tracedEventLog(ports.log, { system: 'kafka' }),
    projections: tracedProjectionStore(ports.projections, {
      collectionPrefix: cluster.collectionPrefix,
      ...(database ? { database } : {}),
    }),
    objects: tracedObjectStore(ports.objects, { buckets: cluster.buckets }),
  };
}
