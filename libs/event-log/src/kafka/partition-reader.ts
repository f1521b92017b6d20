import type { StoredEvent } from '@thumbforge/contracts';
import type { Consumer, ConsumerConfig, Kafka } from 'kafkajs';
import { namesByBytes } from '../file/frame-scan.js';
import { fromMessage, storedFromValue } from './codec.js';
import { Handoff } from './handoff.js';
import {
  PartitionFetcher,
  startPartitionRead,
  type FetchedRecords,
  type PartitionFetch,
} from './partition-fetch.js';

export interface ReaderHost {
  readonly kafka: Kafka;
  consumerConfig(groupId: string): ConsumerConfig;
  /** The client's settings, for a worker thread's own client. */
  readonly clientConfig: PartitionFetch['client'];
  /** Reads of at least this many records of a partition fetch in a worker thread (`PartitionFetcher`). */
  readonly fetchInWorkerFrom: number;
}

/** One batch ahead of the reader on its own thread (see `Handoff`). */
const READ_AHEAD_BATCHES = 2;

/** The events of `types` among fetched records, parsed here. */
function decodeFetched(
  topic: string,
  partition: number,
  { values, records }: FetchedRecords,
  types: ReadonlySet<string> | undefined,
): StoredEvent[] {
  const events: StoredEvent[] = [];
  for (let i = 0; i < records.length; i += 3) {
    const [offset, at, length] = [records[i], records[i + 1], records[i + 2]];
    if (length < 0) throw new Error(`record ${topic}:${partition}@${offset} has no value`);
    const event = storedFromValue(values.toString('utf8', at, at + length), topic, partition, offset);
    if (!types || types.has(event.type)) events.push(event);
  }
  return events;
}

/** Reads `[from, end)` of a partition through a `PartitionFetcher`, parsing here what its worker fetched. */
async function* readInWorker(
  fetcher: PartitionFetcher,
  fetch: PartitionFetch,
  types: ReadonlySet<string> | undefined,
  register: (stop: (error: Error) => void) => () => void,
): AsyncGenerator<StoredEvent[]> {
  const unregister = register((error) => fetcher.fail(error));
  try {
    let next = fetch.from;
    while (next < fetch.end) {
      const fetched = await fetcher.next();
      next = fetched.next;
      const events = decodeFetched(fetch.topic, fetch.partition, fetched, types);
      if (events.length > 0) yield events;
    }
  } finally {
    unregister();
    await fetcher.close();
  }
}

/** A fetcher for a long read, unless the client's settings cannot cross to a thread (e.g. TLS callbacks). */
function fetcherFor(fetch: PartitionFetch): PartitionFetcher | undefined {
  try {
    return new PartitionFetcher(fetch);
  } catch (error) {
    if ((error as { name?: string }).name === 'DataCloneError') return undefined;
    throw error;
  }
}

/**
 * Reads offsets [from, end) of one partition through a consumer of a throwaway group whose only
 * member is assigned that partition and seeks to where the read is whenever it joins. Yields the
 * fetched batches as they come (one await per batch, not per event). The consumer fetches only as
 * fast as the caller iterates; it commits nothing, so the broker drops the group. A long read
 * fetches in a worker thread and parses here.
 */
export async function* readPartitionBatches(
  host: ReaderHost,
  groupId: string,
  topic: string,
  partition: number,
  range: { from: number; end: number; types?: ReadonlySet<string>; unread?: PartitionFetch['unread'] },
  register: (stop: (error: Error) => void) => () => void,
): AsyncGenerator<StoredEvent[]> {
  const { from, end, types } = range;
  if (from >= end) return;
  if (end - from >= host.fetchInWorkerFrom) {
    const fetch: PartitionFetch = {
      client: host.clientConfig,
      consumer: host.consumerConfig(groupId),
      topic,
      partition,
      from,
      end,
      types: types && [...types],
      unread: range.unread,
    };
    const fetcher = fetcherFor(fetch);
    if (fetcher) {
      yield* readInWorker(fetcher, fetch, types, register);
      return;
    }
  }
  const handoff = new Handoff<{ events: StoredEvent[]; next: number }>(READ_AHEAD_BATCHES);
  const unregister = register((error) => handoff.fail(error));
  let consumer: Consumer | undefined;
  try {
    consumer = await startPartitionRead(
      host.kafka,
      host.consumerConfig(groupId),
      { topic, partition, from, end, types: types && namesByBytes(types) },
      async (kept, next) => {
        const events: StoredEvent[] = [];
        for (const message of kept) {
          const event = fromMessage(topic, partition, message);
          if (!types || types.has(event.type)) events.push(event);
        }
        await handoff.put({ events, next });
      },
      (error) => handoff.fail(error),
    );
    let next = from;
    while (next < end) {
      // The batch callback hands each offset of [from, end) on once, in order; skipped types leave gaps.
      const batch = await handoff.take();
      next = batch.next;
      if (batch.events.length > 0) yield batch.events;
    }
  } finally {
    unregister();
    handoff.close();
    await consumer?.disconnect();
  }
}
