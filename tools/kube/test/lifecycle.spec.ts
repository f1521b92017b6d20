import { describe, expect, it } from 'vitest';
import { startCluster } from '../src/index.js';
import { hostState } from './host-state.js';

/** A first run builds Kubernetes, CoreDNS and helm from the Go module proxy. */
const PROVISIONING_TIMEOUT_MS = 60 * 60_000;

describe('the local cluster', () => {
  it(
    'starts with a Ready node and DNS, and tears down leaving the host as it was, twice',
    async () => {
      const before = hostState();
      for (let run = 1; run <= 2; run++) {
        const cluster = await startCluster();
        try {
          const node = JSON.parse(await cluster.kubectl(['get', 'node', cluster.nodeName, '-o', 'json']));
          const ready = node.status.conditions.find((c: { type: string }) => c.type === 'Ready');
          expect(ready.status).toBe('True');
          expect(node.status.nodeInfo.kubeletVersion).toBe(cluster.kubernetesVersion);
          const dns = await cluster.kubectl([
            '-n',
            'kube-system',
            'get',
            'deployment',
            'coredns',
            '-o',
            'jsonpath={.status.readyReplicas}',
          ]);
          expect(dns).toBe('1');
          expect(hostState().links).toContain('tfkube0');
        } finally {
          await cluster.stop();
        }
        expect(hostState()).toEqual(before);
      }
    },
    PROVISIONING_TIMEOUT_MS,
  );
});
