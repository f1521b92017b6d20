import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const SYSCTLS = [
  'net/ipv4/ip_forward',
  'net/ipv4/conf/all/route_localnet',
  'net/bridge/bridge-nf-call-iptables',
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
];

const text = (command: string, args: string[]) => {
  try {
    return execFileSync(command, args, { encoding: 'utf8' });
  } catch {
    return '';
  }
};
const rules = (save: string) =>
  text(save, [])
    .split('\n')
    // Counters and timestamps change on their own; a table the kernel loaded on first use lists its
    // built-in chains with the default policy and no rules, which changes nothing.
    .filter((line) => line && !line.startsWith('#') && !/^(\*\w+|COMMIT|:[A-Z]+ ACCEPT\b.*)$/.test(line))
    .map((line) => line.replace(/\[\d+:\d+\]/, ''));

/**
 * What the local cluster may change on the host, as comparable text: links and addresses, iptables,
 * mounts, kernel settings, top-level cgroups, network namespaces and the paths containerd creates.
 */
export function hostState() {
  return {
    links: text('ip', ['-o', 'link', 'show'])
      .split('\n')
      .map((line) => line.split(':')[1]?.trim())
      .filter(Boolean),
    addresses: text('ip', ['-o', 'addr', 'show'])
      .split('\n')
      .map((l) => l.replace(/\s+/g, ' ').replace(/ valid_lft.*/, '')),
    iptables: rules('iptables-save'),
    ip6tables: rules('ip6tables-save'),
    mounts: readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[4])
      .filter(Boolean)
      .sort(),
    sysctls: SYSCTLS.map(
      (key) =>
        `${key}=${existsSync(`/proc/sys/${key}`) ? readFileSync(`/proc/sys/${key}`, 'utf8').trim() : '-'}`,
    ),
    cgroups: readdirSync('/sys/fs/cgroup').flatMap((controller) => {
      try {
        return readdirSync(`/sys/fs/cgroup/${controller}`, { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${controller}/${entry.name}`);
      } catch {
        return [];
      }
    }),
    paths: [
      '/run/containerd',
      '/run/netns',
      '/var/lib/cni',
      '/etc/cni',
      '/opt/cni',
      '/opt/containerd',
      '/var/log/containers',
      '/var/log/pods',
    ].filter(existsSync),
  };
}
