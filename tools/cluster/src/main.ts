import { parseArgs } from 'node:util';
import { startLocalCluster, type LocalCluster } from './cluster.js';

const USAGE = `usage: thumbforge-cluster [--port N] [--state-dir DIR] [--quiet]

Starts real Kafka, FerretDB and MinIO (tools/infra) and the five service processes, each on its own
port, and prints the gateway's address. Ctrl-C stops the services, then the servers. With
--state-dir the servers keep their data there and a later run resumes it.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'state-dir': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
    process.stderr.write(`--port must be a port number, got ${JSON.stringify(values.port)}\n`);
    process.exit(2);
  }
  const width = 'webhook-delivery'.length;
  // Set once the cluster is up. Before that, Ctrl-C reaches the services through the terminal's
  // process group, and the servers' watchdog stops them once this process is gone.
  const running: { cluster?: LocalCluster } = {};
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n[cluster] ${signal}: stopping the services, then the servers\n`);
    const done = running.cluster ? running.cluster.stop() : Promise.resolve();
    done.then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`[cluster] stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  const cluster = await startLocalCluster({
    ...(port ? { gatewayPort: port } : {}),
    ...(values['state-dir'] ? { stateDir: values['state-dir'] } : {}),
    env: {
      ADMIN_TOKEN: process.env.ADMIN_TOKEN ?? 'change-me-to-a-long-secret',
      WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE ?? '1',
    },
    onOutput: values.quiet
      ? undefined
      : (service, line) => process.stdout.write(`${service.padEnd(width)} | ${line}\n`),
  });
  running.cluster = cluster;
  const lines = [
    '',
    `Thumbforge cluster mode: five processes on Kafka ${cluster.infra.kafka.brokers.join(',')}, ${cluster.infra.mongo.version}, MinIO`,
    `  gateway      ${cluster.gatewayUrl}`,
    `  admin token  ${cluster.adminToken}`,
    `  image links  ${cluster.cdnUrl}`,
    ...Object.values(cluster.processes).map(
      (p) => `  ${p.service.padEnd(width)} pid ${p.child.pid}, health ${p.url}/health/ready`,
    ),
    '  Ctrl-C stops everything.',
    '',
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
  // A service that dies on its own is reported; the rest keep running so it can be inspected.
  for (const proc of Object.values(cluster.processes)) {
    void proc.exited.then((code) => {
      if (!stopping) process.stderr.write(`[cluster] ${proc.service} exited with ${code}\n`);
    });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`thumbforge-cluster: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
