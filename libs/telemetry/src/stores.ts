import type { Bucket, ObjectStore } from '@thumbforge/object-store';
import type { Document, ProjectionCollection, ProjectionStore } from '@thumbforge/projection-store';
import { clientCall } from './spans.js';

/** Where the MongoDB adapter keeps projection positions (see libs/projection-store/src/mongo). */
const POSITIONS_COLLECTION = 'projection_positions';

export interface TracedProjectionStoreOptions {
  /** The adapter's prefix of collection names (`billing_`), so spans name the real collection. */
  collectionPrefix?: string;
  /** `db.namespace`: the database name. */
  database?: string;
}

/** The database named by a `mongodb://` or `mongodb+srv://` URI, if any. */
export function databaseOf(uri: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]+)/.exec(uri);
  return match?.[1] ? decodeURIComponent(match[1]) : undefined;
}

/**
 * Calls its methods through `call` and passes everything else through, so a method the port gains
 * later is traced as well, under its own name.
 */
function traceMethods<T extends object>(
  target: T,
  call: (operation: string, invoke: () => Promise<unknown>) => Promise<unknown>,
  untraced: ReadonlySet<PropertyKey> = new Set(),
): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof property !== 'string' || untraced.has(property)) return method.bind(object);
      return (...args: unknown[]) => call(property, async () => method.apply(object, args));
    },
  });
}

/**
 * MongoDB client spans (`db.system=mongodb`, the store operation as `db.operation.name`, the real
 * collection) for every read-model call made inside a trace.
 */
export function tracedProjectionStore(
  store: ProjectionStore,
  options: TracedProjectionStoreOptions = {},
): ProjectionStore {
  const prefix = options.collectionPrefix ?? '';
  const span = (operation: string, collection: string, invoke: () => Promise<unknown>) =>
    clientCall(
      `${operation} ${collection}`,
      {
        'db.system': 'mongodb',
        'db.operation.name': operation,
        'db.collection.name': collection,
        ...(options.database ? { 'db.namespace': options.database } : {}),
      },
      invoke,
    );
  const traced = traceMethods(
    store,
    (operation, invoke) => span(operation, POSITIONS_COLLECTION, invoke),
    new Set(['collection', 'ping', 'close']),
  );
  return new Proxy(traced, {
    get(object, property) {
      if (property !== 'collection') return Reflect.get(object, property);
      return <T extends Document>(name: string): ProjectionCollection<T> =>
        traceMethods(store.collection<T>(name), (operation, invoke) =>
          span(operation, `${prefix}${name}`, invoke),
        );
    },
  });
}

const S3_OPERATIONS: Record<string, string> = {
  put: 'PutObject',
  get: 'GetObject',
  stream: 'GetObject',
  delete: 'DeleteObject',
};

export interface TracedObjectStoreOptions {
  /** The real bucket behind each of the port's buckets. */
  buckets: Record<Bucket, string>;
}

/** S3 client spans (`rpc.system=aws-api`, `aws.s3.bucket`, the S3 operation) inside a trace. */
export function tracedObjectStore(store: ObjectStore, options: TracedObjectStoreOptions): ObjectStore {
  return new Proxy(store, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      const operation = typeof property === 'string' ? S3_OPERATIONS[property] : undefined;
      if (!operation) return method.bind(object);
      return (bucket: Bucket, key: string, ...rest: unknown[]) =>
        clientCall(
          `S3.${operation}`,
          {
            'rpc.system': 'aws-api',
            'rpc.service': 'S3',
            'rpc.method': operation,
            'aws.s3.bucket': options.buckets[bucket],
            'aws.s3.key': key,
          },
          async () => method.call(object, bucket, key, ...rest),
        );
    },
  });
}
