import type { LocalCluster } from '@thumbforge/local-cluster';
import { afterAll, beforeAll, describe } from 'vitest';
import { idempotencyChecks } from '@thumbforge/embedded/test/suites/idempotency.js';
import { signedUrlChecks } from '@thumbforge/embedded/test/suites/signed-urls.js';
import { gatewayTarget, startTestCluster } from './cluster.js';

/**
 * Idempotency keys and signed image URLs on two gateway replicas over Kafka, FerretDB and MinIO: the
 * claims of one account are ordered on its partition, so duplicates sent to both replicas still
 * execute once, and signed images are stored in S3.
 */
describe('two gateway replicas', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({}, { gateway: 2 });
  });
  afterAll(() => cluster?.stop());
  const target = gatewayTarget(() => cluster);

  describe('Idempotency-Key', () =>
    idempotencyChecks(async () => ({ ...(await target()), replicaUrls: cluster.gatewayUrls })));
  describe('signed image URLs', () => signedUrlChecks(target));
});
