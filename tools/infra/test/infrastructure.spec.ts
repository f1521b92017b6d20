import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import mongoose from 'mongoose';
import { afterAll, describe, expect, it } from 'vitest';
import {
  infrastructureGlobalSetup,
  readInfrastructure,
  refuseConnections,
  startInfrastructure,
  stopInfrastructure,
  type Endpoints,
  type RunningInfrastructure,
} from '../src/index.js';

const quiet = () => undefined;
/** A first run builds FerretDB and MinIO from the Go module proxy; later runs start them in seconds. */
const PROVISIONING_TIMEOUT_MS = 20 * 60_000;

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

const hostPort = (url: string) => {
  const { hostname, port } = new URL(url);
  return [hostname, Number(port)] as const;
};

describe('startInfrastructure', () => {
  let infra: RunningInfrastructure<'mongo' | 's3'> | undefined;
  afterAll(() => infra?.stop());

  it(
    'starts the requested servers on loopback, answering, and stops them with their data',
    async () => {
      infra = await startInfrastructure({ services: ['mongo', 's3'] });
      expect(infra.mongo.uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
      expect(infra.s3).toMatchObject({ endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
      expect(infra).not.toHaveProperty('kafka');
      const health = await fetch(`${infra.s3.endpoint}/minio/health/live`);
      expect(health.status).toBe(200);
      expect(await answers(...hostPort(infra.mongo.uri))).toBe(true);

      const file = await readInfrastructure(`${infra.stateDir}/infrastructure.json`);
      expect(file.mongo).toEqual(infra.mongo);
      const pid = Number(await readFile(`${infra.stateDir}/ferretdb.pid`, 'utf8'));

      await infra.stop();
      expect(existsSync(infra.stateDir)).toBe(false);
      expect(await answers(...hostPort(infra.mongo.uri))).toBe(false);
      expect(await answers(...hostPort(infra.s3.endpoint))).toBe(false);
      expect(() => process.kill(pid, 0)).toThrow();
    },
    PROVISIONING_TIMEOUT_MS,
  );

  it(
    'resumes a kept state directory with its data',
    async () => {
      const stateDir = await mkdtemp(join(tmpdir(), 'thumbforge-infra-test-'));
      try {
        const first = await startInfrastructure({ services: ['mongo'], stateDir, onProgress: quiet });
        const write = await mongoose.createConnection(first.mongo.uri, { dbName: 'kept' }).asPromise();
        await write.db!.collection('docs').insertOne({ _id: 'a' as never, value: 1 });
        await write.close();
        await stopInfrastructure(stateDir, { keepData: true, onProgress: quiet });
        expect(await answers(...hostPort(first.mongo.uri))).toBe(false);

        const second = await startInfrastructure({ services: ['mongo'], stateDir, onProgress: quiet });
        const read = await mongoose.createConnection(second.mongo.uri, { dbName: 'kept' }).asPromise();
        expect(await read.db!.collection('docs').findOne({ _id: 'a' as never })).toEqual({
          _id: 'a',
          value: 1,
        });
        await read.close();
        await second.stop();
        expect(existsSync(stateDir)).toBe(false);
      } finally {
        await rm(stateDir, { recursive: true, force: true });
      }
    },
    PROVISIONING_TIMEOUT_MS,
  );

  it(
    'stops one server and starts it again on the same port with its data, leaving the others running',
    async () => {
      const infra = await startInfrastructure({ services: ['mongo', 's3'], onProgress: quiet });
      try {
        const s3 = new S3Client({
          endpoint: infra.s3.endpoint,
          region: infra.s3.region,
          credentials: infra.s3,
          forcePathStyle: true,
          maxAttempts: 1,
        });
        await s3.send(new CreateBucketCommand({ Bucket: 'kept' }));
        await s3.send(new PutObjectCommand({ Bucket: 'kept', Key: 'a.txt', Body: 'before the outage' }));
        const [host, port] = hostPort(infra.s3.endpoint);

        await infra.stopServer('s3');
        expect(await answers(host, port)).toBe(false);
        expect(await answers(...hostPort(infra.mongo.uri))).toBe(true);
        await infra.stopServer('s3');

        // A stand-in on the free port tells connection attempts apart from calls never made.
        const refused = await refuseConnections(port);
        await expect(s3.send(new GetObjectCommand({ Bucket: 'kept', Key: 'a.txt' }))).rejects.toThrow();
        expect(refused.attempts).toBe(1);
        await refused.close();

        await infra.startServer('s3');
        const object = await s3.send(new GetObjectCommand({ Bucket: 'kept', Key: 'a.txt' }));
        expect(await object.Body!.transformToString()).toBe('before the outage');
        await expect(infra.startServer('s3')).rejects.toThrow(/minio is already running/);
        s3.destroy();

        const restartedPid = Number(await readFile(`${infra.stateDir}/minio.pid`, 'utf8'));
        await infra.stop();
        expect(await answers(host, port)).toBe(false);
        expect(() => process.kill(restartedPid, 0)).toThrow();
      } finally {
        await infra.stop();
      }
    },
    PROVISIONING_TIMEOUT_MS,
  );

  it(
    'gives a vitest global setup the endpoints and a teardown that stops them',
    async () => {
      const provided = new Map<string, unknown>();
      const teardown = await infrastructureGlobalSetup(['mongo'])({
        provide: (key, value) => provided.set(key, value),
      });
      const endpoints = provided.get('infrastructure') as Pick<Endpoints, 'mongo'> & { stateDir: string };
      expect(await answers(...hostPort(endpoints.mongo.uri))).toBe(true);
      await teardown();
      expect(await answers(...hostPort(endpoints.mongo.uri))).toBe(false);
      expect(existsSync(endpoints.stateDir)).toBe(false);
    },
    PROVISIONING_TIMEOUT_MS,
  );

  it('fails loudly, naming the problem, when a service cannot start', async () => {
    await expect(
      startInfrastructure({ services: ['cassandra' as 'mongo'], onProgress: quiet }),
    ).rejects.toThrow(/unknown service 'cassandra'/);
  });
});
