import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectStoreUnavailableError, S3ObjectStore, type S3ObjectStoreOptions } from '../../src/s3/index.js';
import { describeObjectStoreContract } from '../../src/testing/index.js';

/** SIGSTOP reaches each thread of a process when it is next scheduled: waits until all have stopped. */
async function stopped(pid: number): Promise<void> {
  for (;;) {
    const threads = await readdir(`/proc/${pid}/task`);
    const states = await Promise.all(
      threads.map(
        async (tid) => (await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8')).split(') ')[1]![0],
      ),
    );
    if (states.every((state) => state === 'T' || state === 't')) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The first run builds MinIO from the Go module proxy; later runs start the cached binary at once. */
const PROVISIONING_TIMEOUT_MS = 20 * 60_000;
const CDN = 'https://cdn.example.com/thumbs';

let infra: RunningInfrastructure<'s3'>;
const buckets = {
  public: `public-${randomUUID().slice(0, 8)}`,
  private: `private-${randomUUID().slice(0, 8)}`,
};

beforeAll(async () => {
  infra = await startInfrastructure({ services: ['s3'] });
}, PROVISIONING_TIMEOUT_MS);

afterAll(async () => {
  await infra?.stop();
});

async function openStore(options: Partial<S3ObjectStoreOptions> = {}): Promise<S3ObjectStore> {
  const store = new S3ObjectStore({
    endpoint: infra.s3.endpoint,
    region: infra.s3.region,
    credentials: { accessKeyId: infra.s3.accessKeyId, secretAccessKey: infra.s3.secretAccessKey },
    buckets,
    publicBaseUrl: CDN,
    ...options,
  });
  await store.open();
  return store;
}

describeObjectStoreContract('S3ObjectStore on MinIO', async () => {
  const store = await openStore();
  return { store, publicBaseUrl: CDN, cleanup: async () => store.close() };
});

describe('S3ObjectStore on MinIO', () => {
  const key = () => `users/acc_${randomUUID().slice(0, 8)}/generations/gen_1.webp`;

  it('creates missing buckets, and opening again finds them', async () => {
    const fresh = { public: `p-${randomUUID().slice(0, 8)}`, private: `q-${randomUUID().slice(0, 8)}` };
    const first = await openStore({ buckets: fresh });
    await first.put('private', 'a.txt', Buffer.from('kept'), 'text/plain');
    first.close();
    const second = await openStore({ buckets: fresh });
    expect((await second.get('private', 'a.txt'))!.body.toString()).toBe('kept');
    await expect(second.ping()).resolves.toBeUndefined();
    second.close();
  });

  it('refuses to open on missing buckets when told not to create them', async () => {
    const store = new S3ObjectStore({
      endpoint: infra.s3.endpoint,
      region: infra.s3.region,
      credentials: { accessKeyId: infra.s3.accessKeyId, secretAccessKey: infra.s3.secretAccessKey },
      buckets: { public: `none-${randomUUID().slice(0, 8)}`, private: `none-${randomUUID().slice(0, 8)}` },
      publicBaseUrl: CDN,
      createBuckets: false,
    });
    await expect(store.open()).rejects.toThrow();
    store.close();
  });

  it('with publicRead, serves public objects to anyone at the bucket URL, and private ones to no one', async () => {
    const base = `${infra.s3.endpoint}/${buckets.public}`;
    const store = await openStore({ publicRead: true, publicBaseUrl: base });
    const k = key();
    await store.put('public', k, Buffer.from('public image'), 'image/webp');
    await store.put('private', k, Buffer.from('private upload'), 'image/webp');
    const served = await fetch(store.publicUrl(k));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/webp');
    expect(await served.text()).toBe('public image');
    expect((await fetch(`${infra.s3.endpoint}/${buckets.private}/${k}`)).status).toBe(403);
    store.close();
  });

  it('opens its circuit while S3 hangs, failing calls at once, and closes it when S3 is back', async () => {
    const changes: string[] = [];
    const store = await openStore({
      requestTimeoutMs: 300,
      maxAttempts: 1,
      breaker: { volumeThreshold: 2, resetTimeoutMs: 400, windowMs: 10_000 },
      onBreakerChange: (state) => changes.push(state),
    });
    const minio = Number(await readFile(`${infra.stateDir}/minio.pid`, 'utf8'));
    process.kill(-minio, 'SIGSTOP');
    await stopped(minio);
    try {
      for (let i = 0; i < 2; i++) {
        const failed = await store
          .put('public', key(), Buffer.from('x'), 'image/webp')
          .catch((e: unknown) => e);
        expect(failed).toBeInstanceOf(ObjectStoreUnavailableError);
        expect((failed as ObjectStoreUnavailableError).circuitOpen).toBe(false);
      }
      expect(store.breakerState).toBe('open');
      const refused = await store
        .put('public', key(), Buffer.from('x'), 'image/webp')
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ObjectStoreUnavailableError);
      expect((refused as ObjectStoreUnavailableError).circuitOpen).toBe(true);
    } finally {
      process.kill(-minio, 'SIGCONT');
    }
    const k = key();
    for (let attempt = 0; store.breakerState !== 'closed'; attempt++) {
      expect(attempt).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await store.put('public', k, Buffer.from('back'), 'image/webp').catch(() => undefined);
    }
    expect((await store.get('public', k))!.body.toString()).toBe('back');
    expect(changes).toEqual(['open', 'half-open', 'closed']);
    store.close();
  });

  it('does not count a missing object or a refused request as an outage', async () => {
    const breaker = { volumeThreshold: 2, resetTimeoutMs: 10_000, windowMs: 10_000 };
    const store = await openStore({ breaker });
    for (let i = 0; i < 5; i++) expect(await store.get('public', key())).toBeUndefined();
    expect(store.breakerState).toBe('closed');
    store.close();

    const refused = new S3ObjectStore({
      endpoint: infra.s3.endpoint,
      region: infra.s3.region,
      credentials: { accessKeyId: infra.s3.accessKeyId, secretAccessKey: 'wrong-secret-key' },
      buckets,
      publicBaseUrl: CDN,
      breaker,
    });
    for (let i = 0; i < 5; i++) {
      const error = await refused
        .put('public', key(), Buffer.from('x'), 'image/webp')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ObjectStoreUnavailableError);
    }
    expect(refused.breakerState).toBe('closed');
    refused.close();
  });

  it('refuses a base URL that is not http(s) and a single bucket for both', () => {
    const base = { region: 'us-east-1', buckets, publicBaseUrl: CDN };
    expect(() => new S3ObjectStore({ ...base, publicBaseUrl: 'cdn' })).toThrow(TypeError);
    expect(() => new S3ObjectStore({ ...base, buckets: { public: 'same', private: 'same' } })).toThrow(
      TypeError,
    );
  });
});
