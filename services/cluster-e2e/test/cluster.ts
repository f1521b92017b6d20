import { startLocalCluster, type LocalCluster, type LocalClusterOptions } from '@thumbforge/local-cluster';
import type { ApiTarget } from '@thumbforge/embedded/test/suites/target.js';
import { ADMIN_TOKEN } from '@thumbforge/embedded/test/support/http.js';

/**
 * The settings the shared suites expect of a target (rate limits out of the way, loopback webhooks,
 * fast retries and timeouts), plus a Kafka session short enough for a killed process's partitions
 * to move on within seconds.
 */
export const TEST_CLUSTER_ENV = {
  ADMIN_TOKEN,
  LOG_LEVEL: 'warn',
  RATE_LIMITS: 'free=1000,creator=1000,pro=1000,business=1000',
  WEBHOOK_ALLOW_PRIVATE: '1',
  WEBHOOK_RETRY_DELAYS_MS: '50,100,200',
  WEBHOOK_TIMEOUT_MS: '300',
  KAFKA_SESSION_TIMEOUT_MS: '6000',
  // Several partitions per topic, so keys spread and every read and wait crosses partitions.
  KAFKA_PARTITIONS: '3',
};

export function startTestCluster(
  env: Record<string, string> = {},
  replicas: LocalClusterOptions['replicas'] = {},
): Promise<LocalCluster> {
  return startLocalCluster({ env: { ...TEST_CLUSTER_ENV, ...env }, replicas, onProgress: () => {} });
}

/** The gateway of a running cluster as a suite target; the cluster outlives the suite. */
export function gatewayTarget(cluster: () => LocalCluster): () => Promise<ApiTarget> {
  return async () => ({
    url: cluster().gatewayUrl,
    cdnUrl: cluster().cdnUrl,
    now: () => new Date(),
    // Real time: the rate limits are high enough that consecutive tests never meet them.
    tick: () => {},
    close: async () => {},
  });
}
