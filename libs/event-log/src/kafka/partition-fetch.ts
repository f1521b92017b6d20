import { once } from 'node:events';
import { isMainThread, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads';
import {
  AssignerProtocol,
  Kafka,
  logLevel,
  type Consumer,
  type ConsumerConfig,
  type KafkaConfig,
  type KafkaMessage,
  type PartitionAssigner,
} from 'kafkajs';
import type * as FrameScan from '../file/frame-scan.js';

/**
 * Reading one partition's records through a consumer of a throwaway group, on the caller's thread
 * (`partition-reader.ts`) or, for a long read, in a worker thread (`PartitionFetcher`): kafkajs'
 * fetches and its decoding of record batches take half of a replay's time, and in the worker they
 * run on another core while the caller parses and folds.
 *
 * The worker loads this very file, so it imports only Node's own modules and kafkajs (and, by the
 * file name this one has, its two fixes of kafkajs, the request queue's and the record decoder's, and
 * the file log's payload cut and lookup by name bytes): from the sources (tests) Node runs it with its
 * types stripped, from `dist` as it was built.
 */

/** The Kafka header that carries a record's event type: readers skip records by it unparsed. */
export const EVENT_TYPE_HEADER = 'event-type';

/**
 * A read is a replay: larger fetches than kafkajs's 1 MiB default mean fewer round trips, and one
 * batch waiting ahead of the reader keeps the next fetch on its way while the reader folds.
 */
const READ_FETCH_BYTES = 4 * 1024 * 1024;

/** Assigns the single member of a group exactly one partition: kafkajs has no group-less consumer. */
function onePartition(topic: string, partition: number): PartitionAssigner {
  return () => ({
    name: 'ThumbforgeOnePartition',
    version: 0,
    protocol: ({ topics }) => ({
      name: 'ThumbforgeOnePartition',
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
    }),
    assign: async ({ members }) =>
      members.map(({ memberId }, i) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 0,
          assignment: i === 0 ? { [topic]: [partition] } : {},
          userData: Buffer.alloc(0),
        }),
      })),
  });
}

type Header = NonNullable<KafkaMessage['headers']>[string];

/**
 * The value of a record's type in `byType`, from its event-type header (see `toMessage`) as fetched:
 * its bytes are matched, not decoded into a string per record. Undefined for any other type.
 */
function ofHeader<T>(byType: FrameScan.ByNameBytes<T>, header: Header): T | undefined {
  return byType.of(Buffer.isBuffer(header) ? header : Buffer.from(String(header)));
}

/** Whether a record may be of a wanted type: one without the header is parsed and its envelope decides. */
function wanted(types: FrameScan.ByNameBytes<true>, message: KafkaMessage): boolean {
  const header = message.headers?.[EVENT_TYPE_HEADER];
  return header === undefined || ofHeader(types, header) !== undefined;
}

/**
 * The records of a fetched batch that a read at `from` of offsets up to `end` hands on, those of
 * `types` (all without it), and the offset after the last record it looked at. Fetches start where
 * the read is, but defensively nothing before `from` is handed on again.
 */
function recordsToHand(
  messages: readonly KafkaMessage[],
  from: number,
  end: number,
  types: FrameScan.ByNameBytes<true> | undefined,
): { kept: KafkaMessage[]; next: number } {
  const kept: KafkaMessage[] = [];
  let next = from;
  for (const message of messages) {
    const offset = Number(message.offset);
    if (offset < next || offset >= end) continue;
    next = offset + 1;
    if (!types || wanted(types, message)) kept.push(message);
  }
  return { kept, next };
}

/** A read of offsets `[from, end)` of one partition, of `types` (all without it). */
export interface PartitionRange {
  topic: string;
  partition: number;
  from: number;
  end: number;
  types?: FrameScan.ByNameBytes<true>;
}

/**
 * Starts a consumer of a throwaway group whose only member is assigned the range's partition and
 * seeks to where the read is whenever it joins; each fetched batch's records for the read
 * (`recordsToHand`) go to `take`, whose promise holds the next fetch back. `onCrash` hears a failure
 * kafkajs does not recover from. The caller disconnects the consumer returned.
 */
export async function startPartitionRead(
  kafka: Kafka,
  config: Omit<ConsumerConfig, 'partitionAssigners'>,
  range: PartitionRange,
  take: (kept: KafkaMessage[], next: number) => Promise<void>,
  onCrash: (error: Error) => void,
): Promise<Consumer> {
  const { topic, partition, end, types } = range;
  const consumer = kafka.consumer({
    ...config,
    maxBytesPerPartition: READ_FETCH_BYTES,
    maxBytes: READ_FETCH_BYTES,
    partitionAssigners: [onePartition(topic, partition)],
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) onCrash(payload.error);
  });
  let forwarded = range.from;
  // Emitted after the group is joined and synced, before the first fetch: seeking here cannot race it.
  consumer.on(consumer.events.GROUP_JOIN, () => {
    consumer.seek({ topic, partition, offset: String(forwarded) });
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset }) => {
        if (batch.topic !== topic || batch.partition !== partition) return;
        const { kept, next } = recordsToHand(batch.messages, forwarded, end, types);
        if (next > forwarded) {
          forwarded = next;
          await take(kept, next);
        }
        resolveOffset(batch.lastOffset());
      },
    });
    return consumer;
  } catch (error) {
    await consumer.disconnect().catch(() => undefined);
    throw error;
  }
}

/** What the worker needs to read `[from, end)` of one partition; all of it crosses threads as data. */
export interface PartitionFetch {
  client: Pick<KafkaConfig, 'clientId' | 'brokers' | 'ssl' | 'sasl'>;
  consumer: Omit<ConsumerConfig, 'partitionAssigners'>;
  topic: string;
  partition: number;
  from: number;
  end: number;
  types?: readonly string[];
  /** Payload fields the read leaves out, by type (`ReadOptions.unread`): the worker cuts them out of the values it hands over. */
  unread?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Records fetched: their values one after another in `values`, and per record `[offset, position,
 * length]` in `records`. `next` is the offset after the last record fetched, skipped ones included.
 */
export interface FetchedRecords {
  values: Buffer;
  records: Float64Array;
  next: number;
}

type Reply =
  | { kind: 'records'; values: ArrayBuffer; records: Float64Array; next: number }
  | { kind: 'error'; message: string; name: string };

const WORKER_ROLE = 'thumbforge.event-log.partition-fetcher';
/** Fetches handed over and not yet taken: the worker fetches no further ahead than this. */
const FETCHES_AHEAD = 2;

/**
 * Reads `[from, end)` of a partition in a worker thread, handing over the values of the records of
 * `types` as fetched. One per long read; `close` ends it (and its consumer) early.
 */
export class PartitionFetcher {
  private readonly worker: Worker;
  private readonly replies: Reply[] = [];
  private failure?: Error;
  private wake?: () => void;
  private exited = false;
  private closing?: Promise<void>;

  constructor(fetch: PartitionFetch) {
    this.worker = new Worker(new URL(import.meta.url), { workerData: { role: WORKER_ROLE, fetch } });
    this.worker.on('message', (reply: Reply) => {
      this.replies.push(reply);
      this.wake?.();
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => {
      this.exited = true;
      this.fail(new Error('the partition fetcher stopped'));
    });
  }

  /** The next records fetched; rejects with the consumer's error or once the worker is gone. */
  async next(): Promise<FetchedRecords> {
    for (;;) {
      const reply = this.replies.shift();
      if (reply?.kind === 'records') {
        this.worker.postMessage('taken');
        return { values: Buffer.from(reply.values), records: reply.records, next: reply.next };
      }
      if (reply?.kind === 'error') throw Object.assign(new Error(reply.message), { name: reply.name });
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Stops the fetches, disconnects the consumer and ends the worker. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.exited) return;
    const exited = once(this.worker, 'exit');
    this.worker.postMessage('stop');
    await exited;
  }

  /** Fails the read from outside (the log closing): the next `next` rejects with `error`. */
  fail(error: Error): void {
    this.failure ??= error;
    this.wake?.();
  }
}

/** The worker's side: one consumer, fetching while fewer than `FETCHES_AHEAD` wait untaken. */
async function fetchPartition(port: MessagePort, fetch: PartitionFetch): Promise<void> {
  // The connections of this thread's kafkajs get the request-queue fix too (see request-queue.ts),
  // and its fetches the leaner record decode (record-decoder.ts), before the first fetch loads kafkajs'.
  const extension = import.meta.url.slice(import.meta.url.lastIndexOf('.'));
  const sibling = (name: string) => import(new URL(`./${name}${extension}`, import.meta.url).href);
  const { fixKafkajsRequestQueue } = (await sibling('request-queue')) as {
    fixKafkajsRequestQueue(): boolean;
  };
  const { useLeanRecordDecoder } = (await sibling('record-decoder')) as { useLeanRecordDecoder(): boolean };
  fixKafkajsRequestQueue();
  useLeanRecordDecoder();
  // The payload walk the file log's scanner cuts with: the caller then parses only what it folds.
  const { ByNameBytes, cutEnvelopeFields, namesByBytes, unreadFields } = (await sibling(
    '../file/frame-scan',
  )) as typeof FrameScan;
  const cuts = fetch.unread && new ByNameBytes(unreadFields(fetch.unread));
  let untaken = 0;
  let onTaken: (() => void) | undefined;
  let stopping = false;
  let consumer: Consumer | undefined;
  port.on('message', (message: 'taken' | 'stop') => {
    if (message === 'taken') untaken--;
    else stopping = true;
    onTaken?.();
    if (stopping) {
      // Ends this thread only, whatever kafkajs left scheduled.
      void (consumer?.disconnect() ?? Promise.resolve()).catch(() => undefined).then(() => process.exit(0));
    }
  });
  const report = (error: unknown) =>
    port.postMessage({
      kind: 'error',
      message: error instanceof Error ? error.message : String(error),
      name: error instanceof Error ? error.name : 'Error',
    } satisfies Reply);
  const hand = async (kept: KafkaMessage[], next: number) => {
    if (stopping) return;
    // Its own ArrayBuffer, not a slice of Node's pool: it is handed over whole.
    const values = Buffer.allocUnsafeSlow(kept.reduce((sum, { value }) => sum + (value?.length ?? 0), 0));
    const records = new Float64Array(kept.length * 3);
    let at = 0;
    for (let i = 0; i < kept.length; i++) {
      const { offset, value, headers } = kept[i];
      records[3 * i] = Number(offset);
      records[3 * i + 1] = at;
      // A record without a value (never one of ours) reads as length -1: the reader refuses it.
      if (!value) {
        records[3 * i + 2] = -1;
        continue;
      }
      const copied = value.copy(values, at);
      const header = headers?.[EVENT_TYPE_HEADER];
      const fields = cuts && header !== undefined ? ofHeader(cuts, header) : undefined;
      const length = fields ? cutEnvelopeFields(values, at, copied, fields) : copied;
      records[3 * i + 2] = length;
      at += length;
    }
    const reply: Reply = { kind: 'records', values: values.buffer as ArrayBuffer, records, next };
    port.postMessage(reply, [reply.values, records.buffer as ArrayBuffer]);
    untaken++;
    while (untaken >= FETCHES_AHEAD && !stopping) await new Promise<void>((resolve) => (onTaken = resolve));
  };
  const kafka = new Kafka({ ...fetch.client, logLevel: logLevel.NOTHING });
  const range = { ...fetch, types: fetch.types && namesByBytes(fetch.types) };
  try {
    consumer = await startPartitionRead(kafka, fetch.consumer, range, hand, report);
  } catch (error) {
    report(error);
  }
}

if (!isMainThread && parentPort && (workerData as { role?: string } | null)?.role === WORKER_ROLE) {
  void fetchPartition(parentPort, (workerData as { fetch: PartitionFetch }).fetch);
}
