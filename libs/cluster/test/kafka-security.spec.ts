import { collect, testEvent, uniqueName } from '@thumbforge/event-log/testing';
import { KafkaEventLog } from '@thumbforge/event-log/kafka';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaConnection, loadClusterSettings } from '../src/index.js';

/** The first run resolves Kafka from Maven Central; later runs start the cached broker. */
const PROVISIONING_TIMEOUT_MS = 15 * 60_000;

let infra: RunningInfrastructure<'kafka'>;

beforeAll(async () => {
  infra = await startInfrastructure({ services: ['kafka'], kafkaSaslSsl: true });
}, PROVISIONING_TIMEOUT_MS);

afterAll(async () => {
  await infra?.stop();
});

/** A Kafka client configured as a service process is: from the environment, through the settings. */
function logFrom(env: Record<string, string>): KafkaEventLog {
  const settings = loadClusterSettings({
    MONGODB_URI: 'mongodb://unused/db',
    CDN_URL: 'https://cdn.example.com',
    ...env,
  });
  return new KafkaEventLog({ ...kafkaConnection(settings.kafka), clientId: 'security-test' });
}

function saslSslEnv(mechanism: string, credentials: { username: string; password: string }) {
  const listener = infra.kafka.saslSsl!;
  return {
    KAFKA_BROKERS: listener.brokers.join(','),
    KAFKA_TLS_CA_FILE: listener.caFile,
    KAFKA_SASL_MECHANISM: mechanism,
    KAFKA_SASL_USERNAME: credentials.username,
    KAFKA_SASL_PASSWORD: credentials.password,
  };
}

describe('Kafka over SASL_SSL', () => {
  it.each(['plain', 'scram-sha-256', 'scram-sha-512'])(
    'appends and reads events with %s over TLS',
    async (mechanism) => {
      const listener = infra.kafka.saslSsl!;
      const user = mechanism === 'plain' ? listener.plain : listener.scram;
      const log = logFrom(saslSslEnv(mechanism, user));
      try {
        await log.open();
        const topic = uniqueName('security');
        await log.createTopics([topic]);
        const stored = await log.append(topic, [testEvent(1), testEvent(2)]);
        expect(stored.map((e) => e.offset)).toEqual([0, 1]);
        const read = await collect(log.read(topic));
        expect(read.map((e) => e.id)).toEqual(stored.map((e) => e.id));
      } finally {
        await log.close();
      }
    },
    60_000,
  );

  it.each([
    [
      'a wrong password',
      () => saslSslEnv('scram-sha-512', { ...infra.kafka.saslSsl!.scram, password: 'wrong' }),
      /SASL SCRAM SHA512 authentication failed/,
    ],
    [
      'PLAIN credentials offered as SCRAM',
      () => saslSslEnv('scram-sha-256', infra.kafka.saslSsl!.plain),
      /SASL SCRAM SHA256 authentication failed/,
    ],
    [
      'no SASL on the SASL_SSL listener',
      () => ({
        KAFKA_BROKERS: infra.kafka.saslSsl!.brokers.join(','),
        KAFKA_TLS_CA_FILE: infra.kafka.saslSsl!.caFile,
      }),
      /./,
    ],
    [
      "the system's CAs, which did not sign the broker's certificate",
      () => ({
        ...saslSslEnv('plain', infra.kafka.saslSsl!.plain),
        KAFKA_TLS_CA_FILE: '',
        KAFKA_TLS: 'true',
      }),
      /certificate/,
    ],
  ])(
    'refuses to connect with %s',
    async (_, env, reason) => {
      const log = logFrom(env());
      try {
        await expect(log.open()).rejects.toThrow(reason);
      } finally {
        await log.close().catch(() => undefined);
      }
    },
    60_000,
  );
});
