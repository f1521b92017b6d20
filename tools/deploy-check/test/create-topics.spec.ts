import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TOPICS } from '@thumbforge/contracts';
import { LEASE_TOPIC } from '@thumbforge/event-log';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRYPOINT, entrypointCommands, REPO } from '../src/index.js';

/** The first run resolves Kafka from Maven Central; later runs start the cached broker in seconds. */
const PROVISIONING_TIMEOUT_MS = 15 * 60_000;
const COMMAND = join(REPO, entrypointCommands().get('create-topics')!);
const EVENT_TOPICS = Object.values(TOPICS);
const ALL_TOPICS = [...EVENT_TOPICS, LEASE_TOPIC];

let infra: RunningInfrastructure<'kafka'>;

beforeAll(async () => {
  infra = await startInfrastructure({ services: ['kafka'] });
}, PROVISIONING_TIMEOUT_MS);

afterAll(async () => {
  await infra?.stop();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The settings a service process gets, with these changes (undefined removes one). */
function clusterEnv(changes: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    KAFKA_BROKERS: infra.kafka.brokers.join(','),
    KAFKA_PARTITIONS: '2',
    MONGODB_URI: 'mongodb://mongo.invalid:27017/thumbforge',
    CDN_URL: 'https://cdn.example.com',
    ...changes,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

function run(file: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) =>
    execFile(file, args, { cwd: REPO, env }, (error, stdout, stderr) =>
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr }),
    ),
  );
}

const createTopics = (env: Record<string, string>) => run(process.execPath, [COMMAND], env);

describe('create-topics on a real broker', () => {
  it('is built', () => {
    expect(existsSync(COMMAND), `${COMMAND} (build first: npm run build)`).toBe(true);
  });

  it('refuses a bad setting with one line naming it and exit code 78', async () => {
    const missing = await createTopics(clusterEnv({ MONGODB_URI: undefined }));
    expect(missing.code).toBe(78);
    expect(missing.stderr).toMatch(/^thumbforge create-topics: invalid configuration: MONGODB_URI: /);
    const factor = await createTopics(clusterEnv({ KAFKA_REPLICATION_FACTOR: '0' }));
    expect(factor.code).toBe(78);
    expect(factor.stderr).toContain('KAFKA_REPLICATION_FACTOR: must be between 1 and 32');
  });

  // Before the run that creates the topics: this one must find none of them.
  it('fails with the reason when the broker refuses the request', async () => {
    // One broker cannot hold three replicas.
    const result = await createTopics(clusterEnv({ KAFKA_REPLICATION_FACTOR: '3' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^thumbforge create-topics: failed: /m);
  });

  it('creates every topic, then finds them all on a second run, through the image entry point too', async () => {
    const first = await createTopics(clusterEnv());
    expect(first.stderr).not.toMatch(/failed|invalid/);
    expect(first.code).toBe(0);
    for (const topic of EVENT_TOPICS) expect(first.stdout).toContain(`created ${topic} (2 partitions)`);
    expect(first.stdout).toContain(`created ${LEASE_TOPIC} (1 partition)`);
    expect(first.stdout).toContain(
      `${ALL_TOPICS.length} topics ready (${ALL_TOPICS.length} created, 0 already there)`,
    );

    // The image runs it as `create-topics` through docker/entrypoint.sh, from the same layout.
    const second = await run('sh', [ENTRYPOINT, 'create-topics'], clusterEnv({ KAFKA_PARTITIONS: '3' }));
    expect(second.code).toBe(0);
    for (const topic of EVENT_TOPICS)
      expect(second.stdout).toContain(
        `exists  ${topic} (2 partitions) (KAFKA_PARTITIONS applies to new topics only)`,
      );
    expect(second.stdout).toContain(`exists  ${LEASE_TOPIC} (1 partition)\n`);
    expect(second.stdout).toContain(`(0 created, ${ALL_TOPICS.length} already there)`);

    const admin = new Kafka({ brokers: infra.kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: ALL_TOPICS });
      const partitions = Object.fromEntries(topics.map((t) => [t.name, t.partitions.length]));
      expect(partitions).toEqual({
        ...Object.fromEntries(EVENT_TOPICS.map((t) => [t, 2])),
        [LEASE_TOPIC]: 1,
      });
      // The event topics are the system of record: kept forever.
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: EVENT_TOPICS.map((name) => ({
          type: ConfigResourceTypes.TOPIC,
          name,
          configNames: ['retention.ms'],
        })),
      });
      expect(resources).toHaveLength(EVENT_TOPICS.length);
      for (const resource of resources)
        expect(resource.configEntries[0]?.configValue, resource.resourceName).toBe('-1');
    } finally {
      await admin.disconnect();
    }
  });
});
