import type { StoredEvent } from '@thumbforge/contracts';
import {
  AssignerProtocol,
  type ConsumerConfig,
  type Kafka,
  type KafkaMessage,
  type PartitionAssigner,
} from 'kafkajs';
import { EVENT_TYPE_HEADER, fromMessage } from './codec.js';
import { Handoff } from './handoff.js';

export interface ReaderHost {
  readonly kafka: Kafka;
  consumerConfig(groupId: string): ConsumerConfig;
}

/**
 * A read is a replay: larger fetches than kafkajs's 1 MiB default mean fewer round trips, and one
 * batch waiting ahead of the reader keeps the next fetch on its way while the reader folds.
 */
const READ_FETCH_BYTES = 4 * 1024 * 1024;
const READ_AHEAD_BATCHES = 2;

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

/**
 * Whether a record may be of one of `types`, from its event-type header (see `toMessage`), so that
 * the others are skipped unparsed. A record without the header is parsed and its envelope decides.
 */
function wanted(types: ReadonlySet<string>, message: KafkaMessage): boolean {
  const header = message.headers?.[EVENT_TYPE_HEADER];
  if (header === undefined) return true;
  return types.has(Buffer.isBuffer(header) ? header.toString('utf8') : String(header));
}

/**
 * Reads offsets [from, end) of one partition through a consumer of a throwaway group whose only
 * member is assigned that partition and seeks to where the read is whenever it joins. Yields the
 * fetched batches as they come (one await per batch, not per event). The consumer fetches only as
 * fast as the caller iterates; it commits nothing, so the broker drops the group.
 */
export async function* readPartitionBatches(
  host: ReaderHost,
  groupId: string,
  topic: string,
  partition: number,
  range: { from: number; end: number; types?: ReadonlySet<string> },
  register: (stop: (error: Error) => void) => () => void,
): AsyncGenerator<StoredEvent[]> {
  const { from, end, types } = range;
  if (from >= end) return;
  const handoff = new Handoff<{ events: StoredEvent[]; next: number }>(READ_AHEAD_BATCHES);
  const unregister = register((error) => handoff.fail(error));
  const consumer = host.kafka.consumer({
    ...host.consumerConfig(groupId),
    maxBytesPerPartition: READ_FETCH_BYTES,
    maxBytes: READ_FETCH_BYTES,
    partitionAssigners: [onePartition(topic, partition)],
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) handoff.fail(payload.error);
  });
  let forwarded = from;
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
        const events: StoredEvent[] = [];
        let next = forwarded;
        for (const message of batch.messages) {
          const offset = Number(message.offset);
          // Defensive: fetches start where the read is, but nothing is handed out twice.
          if (offset < next || offset >= end) continue;
          next = offset + 1;
          if (types && !wanted(types, message)) continue;
          const event = fromMessage(topic, partition, message);
          if (!types || types.has(event.type)) events.push(event);
        }
        if (next > forwarded) {
          forwarded = next;
          await handoff.put({ events, next });
        }
        resolveOffset(batch.lastOffset());
      },
    });
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
    await consumer.disconnect();
  }
}
