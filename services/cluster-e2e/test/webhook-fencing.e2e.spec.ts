import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { makeEvent, TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { admittedFacts, isOwnerFenced } from '@thumbforge/domain';
import { KafkaEventLog } from '@thumbforge/event-log/kafka';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';
import { clusterEnv } from '@thumbforge/local-cluster';
import { encryptApiKey, hashApiKey, InfrastructureModule, loadConfig } from '@thumbforge/platform';
import { MongoProjectionStore } from '@thumbforge/projection-store/mongo';
import { WebhookDeliveryModule } from '@thumbforge/webhook-delivery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SESSION_TIMEOUT_MS = 6_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value) return value;
    await sleep(100);
  }
}

interface Post {
  attempt: string;
  body: string;
  answer(status: number): void;
}

/** A webhook receiver whose every answer the test gives by hand. */
async function startReceiver(): Promise<{ url: string; posts: Post[]; close(): Promise<void> }> {
  const posts: Post[] = [];
  const server: Server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () =>
      posts.push({
        attempt: String(req.headers['x-thumbforge-delivery-attempt']),
        body: Buffer.concat(chunks).toString('utf8'),
        answer: (status) => res.writeHead(status).end(),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    posts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Webhook attempts are one-writer decisions: two webhook-delivery replicas on real Kafka and FerretDB,
 * composed as their processes are. The first owner's attempt is still waiting for the receiver when its
 * partition moves to the second replica, which fences it and makes the attempt itself; the first
 * owner's late result must not count.
 */
describe('webhook attempts on real Kafka while their partition moves', () => {
  let infra: RunningInfrastructure;
  let env: Record<string, string>;
  let client: KafkaEventLog;
  const apps: INestApplicationContext[] = [];

  async function replica(): Promise<INestApplicationContext> {
    const config = loadConfig(env);
    const infrastructure = await clusterInfrastructure('webhook-delivery', env)(config);
    const app = await NestFactory.createApplicationContext(
      {
        module: class WebhookReplica {},
        imports: [InfrastructureModule.forRoot(infrastructure), WebhookDeliveryModule],
      },
      { logger: false },
    );
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    infra = await startInfrastructure({ services: ['kafka', 'mongo', 's3'], onProgress: () => {} });
    env = {
      ...clusterEnv(infra, randomBytes(24).toString('hex')),
      LOG_LEVEL: 'silent',
      KAFKA_PARTITIONS: '1',
      KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_RETRY_DELAYS_MS: '50,100,200',
      WEBHOOK_TIMEOUT_MS: '600000',
    };
    client = new KafkaEventLog({
      brokers: infra.kafka.brokers,
      partitions: 1,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
    });
    await client.open();
    await client.createTopics([TOPICS.webhooks, TOPICS.gateway, TOPICS.jobs]);
  }, 600_000);

  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await client?.close();
    await infra?.stop();
  });

  it("drops the attempt the old owner records after the new owner's marker; the new owner decides from the log", async () => {
    const receiver = await startReceiver();
    try {
      const key = `tf_live_${randomBytes(16).toString('hex')}`;
      const secret = Buffer.from(env.KEY_ENCRYPTION_SECRET!, 'hex');
      await client.append(TOPICS.gateway, [
        makeEvent('gateway.api-key-issued', 'acc_fence', {
          accountId: 'acc_fence',
          keyHash: hashApiKey(key),
          keyCiphertext: encryptApiKey(key, secret),
          keyHint: key.slice(-4),
        }),
      ]);
      const first = await replica();
      await client.append(TOPICS.webhooks, [
        makeEvent('webhook.delivery-requested', 'job_fence', {
          jobId: 'job_fence',
          accountId: 'acc_fence',
          url: receiver.url,
          outcome: { event: 'generation.failed', error: 'Generation timed out' },
          timestamp: new Date().toISOString(),
        }),
      ]);
      // The first owner's attempt 1 is at the receiver, unanswered, when that replica shuts down: its
      // consumers leave at once, its attempt finishes when the receiver answers.
      await until(async () => receiver.posts.length === 1);
      const stopping = first.close();
      const second = await replica();
      const byNewOwner = await until(async () => receiver.posts[1]);
      receiver.posts[0]!.answer(200);
      await stopping;
      byNewOwner.answer(500);
      await until(async () => receiver.posts[2]).then((retry) => retry.answer(200));

      const events = await until(async () => {
        const all: StoredEvent[] = [];
        for await (const event of client.read(TOPICS.webhooks)) all.push(event);
        return all.filter((e) => e.type === 'webhook.delivered').length === 2 && all;
      });
      const markers = events.filter(isOwnerFenced).map((e) => e.offset);
      expect(markers).toHaveLength(2);
      const [oldEpoch, newEpoch] = markers as [number, number];
      const stale = events.find((e) => e.type === 'webhook.delivered' && e.fence === oldEpoch)!;
      expect(stale.offset).toBeGreaterThan(newEpoch);
      // Only the new owner's attempts count: its failed first attempt and its delivered retry.
      const admitted = [...admittedFacts(events)].filter((e) => e.type !== 'webhook.delivery-requested');
      expect(admitted.map((e) => [e.type, (e.payload as { attempt: number }).attempt, e.fence])).toEqual([
        ['webhook.attempt-failed', 1, newEpoch],
        ['webhook.delivered', 2, newEpoch],
      ]);
      expect(receiver.posts.map((p) => p.attempt)).toEqual(['1', '1', '2']);
      expect(new Set(receiver.posts.map((p) => p.body)).size).toBe(1);

      // The shared read model agrees: delivered by attempt 2, the stale result left out.
      const store = new MongoProjectionStore({
        uri: env.MONGODB_URI!,
        collectionPrefix: 'webhook-delivery_',
      });
      await store.open();
      try {
        const delivery = await until(async () => {
          const doc = await store
            .collection<{ id: string; state: string; attempts: number }>('webhook_deliveries')
            .get('job_fence');
          return doc?.state === 'delivered' && doc;
        });
        expect(delivery).toMatchObject({ state: 'delivered', attempts: 2, lastStatus: 200 });
      } finally {
        await store.close();
      }
      await second.close();
    } finally {
      await receiver.close();
    }
  });
});
