import { createHmac, timingSafeEqual } from 'node:crypto';
import { Global, Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { makeEvent, TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { EVENT_LOG, type EventLog } from '@thumbforge/event-log';
import { OBJECT_STORE, type ObjectStore } from '@thumbforge/object-store';
import {
  CLOCK,
  CONFIG,
  createLogger,
  encryptApiKey,
  hashApiKey,
  loadConfig,
  LOGGER,
  ReadinessRegistry,
  systemClock,
  type Config,
} from '@thumbforge/platform';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';
import { WebhookDeliveryModule } from '../../src/index.js';

export interface Ports {
  log: EventLog;
  store: ProjectionStore;
  objects: ObjectStore;
  config: Config;
}

export const SECRET = Buffer.alloc(32, 7);

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    KEY_ENCRYPTION_SECRET: SECRET.toString('hex'),
    WEBHOOK_RETRY_DELAYS_MS: '20,40,80',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'silent',
    ...env,
  });
}

@Global()
@Module({})
class TestInfrastructureModule {
  static forRoot(ports: Ports): DynamicModule {
    const providers = [
      { provide: CONFIG, useValue: ports.config },
      { provide: EVENT_LOG, useValue: ports.log },
      { provide: PROJECTION_STORE, useValue: ports.store },
      { provide: OBJECT_STORE, useValue: ports.objects },
      { provide: CLOCK, useValue: systemClock },
      { provide: LOGGER, useValue: createLogger(ports.config) },
      ReadinessRegistry,
    ];
    return {
      module: TestInfrastructureModule,
      providers,
      exports: providers.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}

@Module({})
class TestAppModule {
  static register(ports: Ports): DynamicModule {
    return {
      module: TestAppModule,
      imports: [TestInfrastructureModule.forRoot(ports), WebhookDeliveryModule],
    };
  }
}

/** The service as a composition root would start it: bootstrap hooks run, consumers subscribed. */
export function startWebhookDelivery(ports: Ports): Promise<INestApplicationContext> {
  return NestFactory.createApplicationContext(TestAppModule.register(ports), { logger: false });
}

/** Appends what the gateway writes when it issues a key; answers the key's ciphertext. */
export async function issueApiKey(log: EventLog, accountId: string, key: string): Promise<string> {
  const keyCiphertext = encryptApiKey(key, SECRET);
  await log.append(TOPICS.gateway, [
    makeEvent('gateway.api-key-issued', accountId, {
      accountId,
      keyHash: hashApiKey(key),
      keyCiphertext,
      keyHint: key.slice(-4),
    }),
  ]);
  return keyCiphertext;
}

/** The spec's reference verification: HMAC over the re-serialised parsed body, compared in constant time. */
export function verifySignature(rawBody: string, signature: string, key: string): boolean {
  const expected = createHmac('sha256', key)
    .update(JSON.stringify(JSON.parse(rawBody)))
    .digest('hex');
  const a = Buffer.from(expected);
  const b = Buffer.from(signature);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function webhookEvents(log: EventLog, jobId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of log.read(TOPICS.webhooks)) if (event.aggregateId === jobId) events.push(event);
  return events;
}
