import type { LocalCluster } from '@thumbforge/local-cluster';
import { afterAll, beforeAll, describe } from 'vitest';
import { contractChecks } from '@thumbforge/embedded/test/suites/contract.js';
import { creditChecks } from '@thumbforge/embedded/test/suites/credits.js';
import { asyncWebhookChecks } from '@thumbforge/embedded/test/suites/webhooks.js';
import { gatewayTarget, startTestCluster } from './cluster.js';

/**
 * The embedded API conformance suites, run against five service processes on real Kafka, FerretDB
 * and MinIO. Checks that need a controllable clock or a differently configured service stay in the
 * embedded project only (see docs/cluster.md).
 */
describe('cluster mode', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startTestCluster();
  });
  afterAll(() => cluster?.stop());
  const target = gatewayTarget(() => cluster);

  describe('POST /v1/generate: the contract', () => contractChecks(target));
  describe('async generation and webhooks (spec §6)', () => asyncWebhookChecks(target));
  describe('credits', () => creditChecks(target));
});
