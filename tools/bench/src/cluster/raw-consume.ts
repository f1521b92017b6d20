import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';

/**
 * The baseline of the Kafka replay: a bare kafkajs consumer of a fresh group reading the whole topic
 * from the beginning with kafkajs's default fetch settings, counting records and decoding nothing.
 * Timed like the replay, from connecting until the last record arrived.
 */
export async function rawConsumeMs(brokers: string[], topic: string, events: number): Promise<number> {
  // A new group's coordinator may still be loading: kafkajs then fails the join with a retriable error.
  for (let attempt = 1; ; attempt++) {
    try {
      return await consumeOnce(brokers, topic, events);
    } catch (error) {
      if (attempt >= 5 || !(error as { retriable?: boolean }).retriable) throw error;
    }
  }
}

async function consumeOnce(brokers: string[], topic: string, events: number): Promise<number> {
  const kafka = new Kafka({ clientId: 'thumbforge-bench-raw', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `thumbforge.bench.raw.${randomUUID()}` });
  const start = performance.now();
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let seen = 0;
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (!payload.restart) reject(payload.error);
      });
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            seen += batch.messages.length;
            if (seen >= events) resolve();
          },
        })
        .catch(reject);
    });
    return performance.now() - start;
  } finally {
    await consumer.disconnect();
  }
}
