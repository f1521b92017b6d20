import type { StoredEvent } from '@thumbforge/contracts';
import { AssignerProtocol, type ConsumerConfig, type Kafka, type PartitionAssigner } from 'kafkajs';
import { fromMessage } from './codec.js';
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
  from: number,
  end: number,
  register: (stop: (error: Error) => void) => () => void,
): AsyncGenerator<StoredEvent[]> {
  if (from >= end) return;
  const handoff = new Handoff<StoredEvent[]>(READ_AHEAD_BATCHES);
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
        for (const message of batch.messages) {
          const offset = Number(message.offset);
          // Defensive: fetches start where the read is, but nothing is handed out twice.
          if (offset >= forwarded && offset < end) events.push(fromMessage(topic, partition, message));
        }
        if (events.length > 0) {
          forwarded = events[events.length - 1].offset + 1;
          await handoff.put(events);
        }
        resolveOffset(batch.lastOffset());
      },
    });
    let next = from;
    while (next < end) {
      // The batch callback hands each offset of [from, end) on once, in order, never an empty batch.
      const batch = await handoff.take();
      next = batch[batch.length - 1].offset + 1;
      yield batch;
    }
  } finally {
    unregister();
    handoff.close();
    await consumer.disconnect();
  }
}
