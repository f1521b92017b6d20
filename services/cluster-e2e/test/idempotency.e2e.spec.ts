import type { LocalCluster } from '@thumbforge/local-cluster';
import { afterAll, beforeAll, describe } from 'vitest';
import { idempotencyChecks } from '@thumbforge/embedded/test/suites/idempotency.js';
import { gatewayTarget, startTestCluster } from './cluster.js';

/**
 * Idempotency keys on two gateway replicas over Kafka and FerretDB: the claims of one account are
 * ordered on its partition, so duplicates sent to both replicas still execute once.
 */
describe('Idempotency-Key across two gateway replicas', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({}, { gateway: 2 });
  });
  afterAll(() => cluster?.stop());
  const target = gatewayTarget(() => cluster);

  idempotencyChecks(async () => ({ ...(await target()), replicaUrls: cluster.gatewayUrls }));
});
