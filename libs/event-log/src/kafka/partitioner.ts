import { Partitioners } from 'kafkajs';

/**
 * Key → partition exactly as the Java client's default partitioner does for keyed records
 * (murmur2, positive, modulo the partition count), so every client agrees on an aggregate's partition.
 * The log computes the partition itself because it must know it to report each event's offset.
 */
export function createKeyPartitioner(): (topic: string, key: string, partitions: number) => number {
  const partitioner = Partitioners.DefaultPartitioner();
  const metadata = new Map<number, { partitionId: number; leader: number }[]>();
  return (topic, key, partitions) => {
    let list = metadata.get(partitions);
    if (!list) {
      list = Array.from({ length: partitions }, (_, partitionId) => ({ partitionId, leader: 0 }));
      metadata.set(partitions, list);
    }
    return partitioner({
      topic,
      partitionMetadata: list as Parameters<typeof partitioner>[0]['partitionMetadata'],
      message: { key, value: null },
    });
  };
}
