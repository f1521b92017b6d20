import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../src/index.js';
import { hostState } from './host-state.js';

/** A first run builds Kubernetes, CoreDNS and helm from the Go module proxy. */
const PROVISIONING_TIMEOUT_MS = 60 * 60_000;

async function expectReady(cluster: RunningCluster): Promise<void> {
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
  // On failure, what the pod went through: its conditions and the namespace's events.
  const why =
    dns === '1'
      ? ''
      : await cluster.kubectl(['-n', 'kube-system', 'get', 'pods,events', '-o', 'wide']).catch(String);
  expect(dns, why).toBe('1');
  expect(hostState().links).toContain('tfkube0');
}

const running = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
  } catch {
    return false;
  }
};

/** What the end of a host's session does: SIGKILL to every process the cluster started, no teardown. */
async function killWithoutTeardown(stateDir: string): Promise<void> {
  const pidFiles = readdirSync(stateDir).filter((name) => name.endsWith('.pid'));
  // The watchdog first, or it would tear the cluster down on its own.
  pidFiles.sort((a, b) => Number(b === 'watchdog.pid') - Number(a === 'watchdog.pid'));
  const pids = pidFiles.map((name) => Number(readFileSync(`${stateDir}/${name}`, 'utf8').trim()));
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  while (pids.some(running)) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('the local cluster', () => {
  it(
    'starts with a Ready node and DNS; the next start clears a killed one; down leaves the host as it was',
    async () => {
      const before = hostState();
      const killed = await startCluster();
      try {
        await expectReady(killed);
      } finally {
        await killWithoutTeardown(killed.stateDir);
      }
      // Its bridge, mounts, chains and pods outlive it until the next up.
      expect(hostState().links).toContain('tfkube0');

      const cluster = await startCluster();
      try {
        await expectReady(cluster);
        expect(existsSync(killed.stateDir)).toBe(false);
      } finally {
        await cluster.stop();
      }
      expect(hostState()).toEqual(before);
    },
    PROVISIONING_TIMEOUT_MS,
  );
});
