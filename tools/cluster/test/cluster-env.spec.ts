import { loadClusterSettings } from '@thumbforge/cluster';
import type { RunningInfrastructure } from '@thumbforge/infra';
import { loadConfig } from '@thumbforge/platform';
import { describe, expect, it } from 'vitest';
import { clusterEnv } from '../src/cluster.js';

const infra = {
  stateDir: '/tmp/none',
  kafka: { brokers: ['127.0.0.1:41234'], version: '4.2.1' },
  mongo: { uri: 'mongodb://127.0.0.1:38811/', version: 'ferretdb v1.24.2' },
  s3: {
    endpoint: 'http://127.0.0.1:45120',
    accessKeyId: 'tf',
    secretAccessKey: 'secret',
    region: 'us-east-1',
  },
  stop: async () => {},
  stopServer: async () => {},
  startServer: async () => {},
} satisfies RunningInfrastructure;

describe('clusterEnv', () => {
  it('is a complete, valid cluster configuration pointing at the servers', () => {
    const env = clusterEnv(infra, 'admin-token-0123456789');
    const config = loadConfig(env);
    expect(config.mode).toBe('cluster');
    expect(config.cdnUrl).toBe('http://127.0.0.1:45120/thumbforge-public');
    expect(config.keyEncryptionSecret).toHaveLength(32);
    expect(loadClusterSettings(env)).toEqual({
      kafka: {
        brokers: ['127.0.0.1:41234'],
        clientId: 'thumbforge',
        partitions: 6,
        sessionTimeoutMs: 30_000,
        tls: null,
        sasl: null,
      },
      mongo: { uri: 'mongodb://127.0.0.1:38811/thumbforge' },
      s3: {
        endpoint: 'http://127.0.0.1:45120',
        region: 'us-east-1',
        credentials: { accessKeyId: 'tf', secretAccessKey: 'secret' },
        publicBucket: 'thumbforge-public',
        privateBucket: 'thumbforge-private',
        publicRead: true,
      },
    });
  });

  it('gives every cluster its own key-encryption secret', () => {
    expect(clusterEnv(infra, 'x'.repeat(16)).KEY_ENCRYPTION_SECRET).not.toBe(
      clusterEnv(infra, 'x'.repeat(16)).KEY_ENCRYPTION_SECRET,
    );
  });
});
