import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@thumbforge/platform';
import { describe, expect, it } from 'vitest';
import { kafkaConnection } from './kafka-connection.js';
import { loadClusterSettings } from './settings.js';

const dir = mkdtempSync(join(tmpdir(), 'kafka-connection-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const base = { KAFKA_BROKERS: 'k:9093', MONGODB_URI: 'mongodb://m/db', CDN_URL: 'https://cdn' };
const connection = (env: Record<string, string>) =>
  kafkaConnection(loadClusterSettings({ ...base, ...env }).kafka);

describe('kafkaConnection', () => {
  it('is plaintext without authentication by default', () => {
    expect(connection({})).toEqual({ brokers: ['k:9093'] });
  });

  it('trusts the system CAs with KAFKA_TLS alone', () => {
    expect(connection({ KAFKA_TLS: 'true' })).toEqual({ brokers: ['k:9093'], ssl: true });
  });

  it('reads the CA and the client certificate files', () => {
    const env = {
      KAFKA_TLS_CA_FILE: file('ca.crt', 'CA PEM'),
      KAFKA_TLS_CERT_FILE: file('client.crt', 'CERT PEM'),
      KAFKA_TLS_KEY_FILE: file('client.key', 'KEY PEM'),
      KAFKA_SASL_MECHANISM: 'scram-sha-256',
      KAFKA_SASL_USERNAME: 'svc',
      KAFKA_SASL_PASSWORD: 'secret',
    };
    expect(connection(env)).toEqual({
      brokers: ['k:9093'],
      ssl: { ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM' },
      sasl: { mechanism: 'scram-sha-256', username: 'svc', password: 'secret' },
    });
  });

  it('names the setting whose file cannot be read', () => {
    const missing = join(dir, 'missing.crt');
    expect(() => connection({ KAFKA_TLS_CA_FILE: missing })).toThrow(ConfigError);
    expect(() => connection({ KAFKA_TLS_CA_FILE: missing })).toThrow(
      `KAFKA_TLS_CA_FILE: cannot read ${missing}`,
    );
  });
});
