import { ConfigError } from '@thumbforge/platform';
import { describe, expect, it } from 'vitest';
import { loadClusterSettings } from './settings.js';

const base = {
  KAFKA_BROKERS: '127.0.0.1:9092, kafka-2:9092',
  MONGODB_URI: 'mongodb://127.0.0.1:27017/thumbforge',
  CDN_URL: 'https://cdn.example.com',
};

function failure(env: Record<string, string | undefined>): ConfigError {
  try {
    loadClusterSettings(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadClusterSettings', () => {
  it('reads the required settings and applies the defaults', () => {
    expect(loadClusterSettings(base)).toEqual({
      kafka: {
        brokers: ['127.0.0.1:9092', 'kafka-2:9092'],
        clientId: 'thumbforge',
        partitions: 6,
        sessionTimeoutMs: 30_000,
        tls: null,
        sasl: null,
      },
      mongo: { uri: 'mongodb://127.0.0.1:27017/thumbforge' },
      s3: {
        endpoint: null,
        region: 'us-east-1',
        credentials: null,
        publicBucket: 'thumbforge-public',
        privateBucket: 'thumbforge-private',
        publicRead: false,
      },
    });
  });

  it('reads every optional setting', () => {
    const settings = loadClusterSettings({
      ...base,
      KAFKA_CLIENT_ID: 'tf-prod',
      KAFKA_PARTITIONS: '12',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      S3_ENDPOINT: 'http://127.0.0.1:9000/',
      S3_REGION: 'eu-west-1',
      S3_ACCESS_KEY_ID: 'minio',
      S3_SECRET_ACCESS_KEY: 'secret-key',
      S3_PUBLIC_BUCKET: 'tf-images',
      S3_PRIVATE_BUCKET: 'tf-uploads',
      S3_PUBLIC_READ: 'true',
    });
    expect(settings.kafka).toMatchObject({ clientId: 'tf-prod', partitions: 12, sessionTimeoutMs: 6000 });
    expect(settings.s3).toEqual({
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'minio', secretAccessKey: 'secret-key' },
      publicBucket: 'tf-images',
      privateBucket: 'tf-uploads',
      publicRead: true,
    });
  });

  it.each([
    [{}, null, null],
    [{ KAFKA_TLS: 'true' }, { caFile: null, certFile: null, keyFile: null }, null],
    [{ KAFKA_TLS_CA_FILE: '/tls/ca.crt' }, { caFile: '/tls/ca.crt', certFile: null, keyFile: null }, null],
    [
      { KAFKA_TLS_CERT_FILE: '/tls/c.pem', KAFKA_TLS_KEY_FILE: '/tls/k.pem' },
      { caFile: null, certFile: '/tls/c.pem', keyFile: '/tls/k.pem' },
      null,
    ],
    [
      { KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512', KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'p w' },
      null,
      { mechanism: 'scram-sha-512', username: 'svc', password: 'p w' },
    ],
    [
      { KAFKA_TLS: '1', KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'x' },
      { caFile: null, certFile: null, keyFile: null },
      { mechanism: 'plain', username: 'svc', password: 'x' },
    ],
  ])('Kafka security from %j', (override, tls, sasl) => {
    const { kafka } = loadClusterSettings({ ...base, ...override });
    expect(kafka.tls).toEqual(tls);
    expect(kafka.sasl).toEqual(sasl);
  });

  it.each([
    [{ KAFKA_BROKERS: undefined }, 'KAFKA_BROKERS', 'is required in cluster mode'],
    [{ KAFKA_BROKERS: 'kafka' }, 'KAFKA_BROKERS', 'expected host:port entries, got "kafka"'],
    [{ MONGODB_URI: '' }, 'MONGODB_URI', 'is required in cluster mode'],
    [{ MONGODB_URI: 'postgres://db' }, 'MONGODB_URI', 'must be a mongodb:// or mongodb+srv:// URI'],
    [{ CDN_URL: undefined }, 'CDN_URL', 'is required in cluster mode'],
    [{ KAFKA_PARTITIONS: '0' }, 'KAFKA_PARTITIONS', 'must be between 1 and 1000, got 0'],
    [{ KAFKA_PARTITIONS: 'many' }, 'KAFKA_PARTITIONS', 'must be a whole number, got "many"'],
    [{ KAFKA_SESSION_TIMEOUT_MS: '1000' }, 'KAFKA_SESSION_TIMEOUT_MS', 'must be between 6000'],
    [{ S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT', 'must be an http or https URL'],
    [{ S3_ENDPOINT: 'not a url' }, 'S3_ENDPOINT', 'must be an absolute URL'],
    [{ S3_ACCESS_KEY_ID: 'minio' }, 'S3_SECRET_ACCESS_KEY', 'is required when S3_ACCESS_KEY_ID is set'],
    [{ S3_SECRET_ACCESS_KEY: 'x' }, 'S3_ACCESS_KEY_ID', 'is required when S3_SECRET_ACCESS_KEY is set'],
    [{ S3_PUBLIC_BUCKET: 'Upper_Case' }, 'S3_PUBLIC_BUCKET', 'must be 3-63 lowercase letters'],
    [{ S3_PRIVATE_BUCKET: 'thumbforge-public' }, 'S3_PRIVATE_BUCKET', 'must differ from S3_PUBLIC_BUCKET'],
    [{ S3_PUBLIC_READ: 'maybe' }, 'S3_PUBLIC_READ', 'must be 1/true/yes or 0/false/no'],
    [{ KAFKA_TLS: 'on' }, 'KAFKA_TLS', 'must be 1/true/yes or 0/false/no'],
    [{ KAFKA_TLS_CERT_FILE: '/c.pem' }, 'KAFKA_TLS_KEY_FILE', 'is required when KAFKA_TLS_CERT_FILE is set'],
    [{ KAFKA_TLS_KEY_FILE: '/k.pem' }, 'KAFKA_TLS_CERT_FILE', 'is required when KAFKA_TLS_KEY_FILE is set'],
    [{ KAFKA_TLS: 'false', KAFKA_TLS_CA_FILE: '/ca.pem' }, 'KAFKA_TLS', 'is false, but KAFKA_TLS_* files'],
    [{ KAFKA_SASL_MECHANISM: 'gssapi' }, 'KAFKA_SASL_MECHANISM', 'must be one of plain, scram-sha-256'],
    [{ KAFKA_SASL_USERNAME: 'svc' }, 'KAFKA_SASL_MECHANISM', 'is required with SASL credentials'],
    [{ KAFKA_SASL_MECHANISM: 'plain' }, 'KAFKA_SASL_USERNAME', 'is required when KAFKA_SASL_MECHANISM'],
    [
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'svc' },
      'KAFKA_SASL_PASSWORD',
      'is required when KAFKA_SASL_MECHANISM',
    ],
  ])('%j → one line naming %s', (override, setting, message) => {
    const error = failure({ ...base, ...override });
    expect(error.setting).toBe(setting);
    expect(error.message).toContain(`${setting}: ${message}`);
    expect(error.message).not.toContain('\n');
  });
});
