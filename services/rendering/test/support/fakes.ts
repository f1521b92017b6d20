import type { EventEnvelope, StoredEvent } from '@thumbforge/contracts';
import type { AppendOptions, EventLog, Subscription, SubscriptionOptions } from '@thumbforge/event-log';
import type { Bucket, ObjectStore, StoredObject } from '@thumbforge/object-store';

/** Records appends; this use case never subscribes or reads. */
export class RecordingLog implements EventLog {
  readonly appended: StoredEvent[] = [];

  async append(topic: string, events: EventEnvelope[], _options?: AppendOptions): Promise<StoredEvent[]> {
    const stored = events.map((e) => ({ ...e, topic, partition: 0, offset: this.appended.length }));
    this.appended.push(...stored);
    return stored;
  }
  subscribe(_options: SubscriptionOptions): Promise<Subscription> {
    throw new Error('not used');
  }
  read(): AsyncIterable<StoredEvent> {
    throw new Error('not used');
  }
  async size(): Promise<number> {
    return this.appended.length;
  }
  async ends(): Promise<number[]> {
    return [this.appended.length];
  }
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

/** An in-memory object store whose buckets can be made to fail. */
export class FakeObjectStore implements ObjectStore {
  readonly objects = new Map<string, StoredObject>();
  readonly failing = new Set<Bucket>();

  async put(bucket: Bucket, key: string, body: Buffer, contentType: string): Promise<void> {
    if (this.failing.has(bucket)) throw new Error(`${bucket} bucket unavailable`);
    this.objects.set(`${bucket}/${key}`, { body, contentType });
  }
  async get(bucket: Bucket, key: string): Promise<StoredObject | undefined> {
    if (this.failing.has(bucket)) throw new Error(`${bucket} bucket unavailable`);
    return this.objects.get(`${bucket}/${key}`);
  }
  async stream(): Promise<undefined> {
    return undefined;
  }
  async delete(bucket: Bucket, key: string): Promise<void> {
    this.objects.delete(`${bucket}/${key}`);
  }
  async list(): Promise<[]> {
    return [];
  }
  publicUrl(key: string): string {
    return `https://cdn.example.test/${key}`;
  }
  async ping(): Promise<void> {}
}
