import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCommand, type RunOptions, type RunResult } from '@thumbforge/infra';

const KUBE_DIR = fileURLToPath(new URL('..', import.meta.url));
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** What `tools/kube/up` writes to `<stateDir>/kube.json`. */
export interface ClusterFile {
  stateDir: string;
  kubeconfig: string;
  kubectl: string;
  helm: string;
  containerdAddress: string;
  /** The node's address on its bridge; pods reach the host there. */
  nodeIp: string;
  nodeName: string;
  kubernetesVersion: string;
}

export interface RunningCluster extends Omit<ClusterFile, 'kubectl' | 'helm'> {
  kubectl(args: string[], input?: string): Promise<string>;
  helm(args: string[]): Promise<string>;
  /** Copies an image from the tools' podman storage into the node's containerd. */
  loadImage(image: string): Promise<void>;
  /** Resident memory now: the cluster's own processes, and the pods (their cgroups' RSS). */
  memoryMiB(): { components: Record<string, number>; pods: number };
  /** Tears the cluster down and restores the host; safe to call more than once. */
  stop(): Promise<void>;
}

async function mustRun(command: string, args: string[], options: RunOptions = {}): Promise<string> {
  const result = await runCommand(command, args, options);
  if (result.code !== 0) {
    const tail = result.stderr.trim().split('\n').slice(-30).join('\n');
    throw new Error(`${command} ${args.join(' ')} failed (exit code ${result.code}):\n${tail}`);
  }
  return result.stdout;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Starts the one-node cluster through `tools/kube/up` (provisioning it first: about 15 minutes on a
 * fresh machine, seconds once cached), tied to this process: a watchdog tears it down if the process
 * dies without calling `stop`. Rejects with the components' log tails when anything fails.
 */
export async function startCluster(): Promise<RunningCluster> {
  const stdout = await mustRun(`${KUBE_DIR}up`, ['--owner-pid', String(process.pid)], { onStderr: progress });
  const file = JSON.parse(stdout) as ClusterFile;
  const env = { ...process.env, KUBECONFIG: file.kubeconfig };
  let stopping: Promise<void> | undefined;
  return {
    ...file,
    kubectl: (args, input) => mustRun(file.kubectl, args, { env, ...(input ? { input } : {}) }),
    helm: (args) => mustRun(file.helm, args, { env }),
    loadImage: async (image) => {
      await mustRun(`${KUBE_DIR}load-image`, [file.stateDir, image], { onStderr: progress });
    },
    memoryMiB: () => memoryMiB(file.stateDir),
    stop: () =>
      (stopping ??= mustRun(`${KUBE_DIR}down`, [file.stateDir], { onStderr: progress }).then(
        () => undefined,
      )),
  };
}

/**
 * Tears down what a killed earlier cluster left on the host (`tools/kube/reclaim`); nothing when no
 * cluster is there, rejects when one is alive.
 */
export async function reclaimLeftCluster(): Promise<void> {
  await mustRun(`${KUBE_DIR}reclaim`, [], { onStderr: progress });
}

/** Builds docker/Dockerfile with podman against the locally made base image; resolves with the image. */
export async function buildImage(image = 'localhost/thumbforge:dev'): Promise<string> {
  const stdout = await mustRun(`${KUBE_DIR}scripts/build-image.sh`, [image], { onStderr: progress });
  return stdout.trim().split('\n').at(-1)!;
}

/** podman as the kube scripts configure it (storage in the tools cache, runc, cgroupfs). */
export function podman(args: string[]): Promise<RunResult> {
  return runCommand('bash', [
    '-c',
    `source "${KUBE_DIR}scripts/common.sh" && kpodman "$@"`,
    'podman',
    ...args,
  ]);
}

const COMPONENTS = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'containerd',
  'kubelet',
  'kube-proxy',
];

function rssMiB(pid: string): number {
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? Math.round(Number(kib) / 1024) : 0;
  } catch {
    return 0;
  }
}

function memoryMiB(stateDir: string): { components: Record<string, number>; pods: number } {
  const components: Record<string, number> = {};
  for (const name of COMPONENTS) {
    try {
      components[name] = rssMiB(readFileSync(`${stateDir}/${name}.pid`, 'utf8').trim());
    } catch {
      components[name] = 0;
    }
  }
  let pods = 0;
  try {
    const stat = readFileSync('/sys/fs/cgroup/memory/thumbforge-kube/memory.stat', 'utf8');
    pods = Math.round(Number(/^total_rss (\d+)$/m.exec(stat)?.[1] ?? 0) / 2 ** 20);
  } catch {
    // No pods yet.
  }
  return { components, pods };
}

/**
 * Builds Prometheus from the module proxy and makes its image (cached after the first run); resolves
 * with the image name, for `loadImage` and `manifests/prometheus.yaml`.
 */
export async function prometheusImage(): Promise<string> {
  const stdout = await mustRun(
    'bash',
    [
      '-c',
      `source "${KUBE_DIR}scripts/common.sh" && bash "${KUBE_DIR}scripts/provision-prometheus.sh" &&
        bash "${KUBE_DIR}scripts/provision-images.sh" --prometheus && echo "$PROMETHEUS_IMAGE"`,
    ],
    { onStderr: progress },
  );
  return stdout.trim().split('\n').at(-1)!;
}

export const PROMETHEUS_MANIFEST = `${KUBE_DIR}manifests/prometheus.yaml`;
