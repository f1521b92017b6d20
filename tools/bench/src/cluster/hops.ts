import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type { AnsweredRequest } from './latency.js';
import { percentile } from './stats.js';

/** One record of the cluster's topics, as the profile needs it. */
export interface TimedEvent {
  type: string;
  /** The job id for job events and commands. */
  correlationId: string | null;
  /** Set on `billing.credits-reserved`, whose job spec ties the job to the response. */
  generationId?: string;
  /** The Kafka record timestamp: when the producing service sent it (epoch ms). */
  at: number;
}

export interface HopStep {
  step: string;
  p50: number;
  samples: number;
}

const SENT = 'request sent';
const ANSWERED = 'response read';

/**
 * Where a sync request's time goes: for each request, the job's events in the order they were
 * appended, from the request being sent to the response being read; the median of each step over
 * the requests, in the order the steps happen.
 */
export function hopSteps(requests: readonly AnsweredRequest[], events: readonly TimedEvent[]): HopStep[] {
  const jobOf = new Map<string, string>();
  const byJob = new Map<string, TimedEvent[]>();
  for (const event of events) {
    if (event.generationId && event.correlationId) jobOf.set(event.generationId, event.correlationId);
    if (!event.correlationId) continue;
    const chain = byJob.get(event.correlationId) ?? [];
    chain.push(event);
    byJob.set(event.correlationId, chain);
  }
  const steps = new Map<string, number[]>();
  for (const request of requests) {
    const job = jobOf.get(request.generationId);
    const chain = [...(job ? (byJob.get(job) ?? []) : [])].sort((a, b) => a.at - b.at);
    const answeredAt = request.sentAt + request.ms;
    let previous = { type: SENT, at: request.sentAt };
    for (const event of [...chain.filter((e) => e.at <= answeredAt), { type: ANSWERED, at: answeredAt }]) {
      const step = `${previous.type} -> ${event.type}`;
      steps.set(step, [...(steps.get(step) ?? []), event.at - previous.at]);
      previous = event;
    }
  }
  return [...steps].map(([step, gaps]) => ({
    step,
    p50: percentile(
      [...gaps].sort((a, b) => a - b),
      50,
    ),
    samples: gaps.length,
  }));
}

/** Every record of the cluster's `thumbforge.*` topics, read to their current ends. */
export async function readClusterEvents(brokers: string[]): Promise<TimedEvent[]> {
  const kafka = new Kafka({ clientId: 'thumbforge-bench-hops', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const consumer = kafka.consumer({ groupId: `thumbforge.bench.hops.${randomUUID()}` });
  try {
    const topics = (await admin.listTopics()).filter(
      (t) => t.startsWith('thumbforge.') && t !== 'thumbforge.leases',
    );
    const remaining = new Map<string, number>();
    for (const topic of topics) {
      for (const { partition, high } of await admin.fetchTopicOffsets(topic)) {
        if (Number(high) > 0) remaining.set(`${topic}:${partition}`, Number(high));
      }
    }
    const events: TimedEvent[] = [];
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      if (remaining.size === 0) resolve();
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (!payload.restart) reject(payload.error);
      });
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ topic, partition, message }) => {
            const envelope = JSON.parse(message.value!.toString('utf8')) as {
              type: string;
              correlationId: string | null;
              payload?: { job?: { generationId?: string } };
            };
            events.push({
              type: envelope.type,
              correlationId: envelope.correlationId,
              generationId: envelope.payload?.job?.generationId,
              at: Number(message.timestamp),
            });
            const key = `${topic}:${partition}`;
            if (Number(message.offset) + 1 >= (remaining.get(key) ?? 0)) remaining.delete(key);
            if (remaining.size === 0) resolve();
          },
        })
        .catch(reject);
    });
    return events;
  } finally {
    await consumer.disconnect();
    await admin.disconnect();
  }
}
