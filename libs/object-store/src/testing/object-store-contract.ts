import { randomBytes, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bucket, ObjectStore } from '../port.js';

export interface ObjectStoreContext {
  store: ObjectStore;
  /** The base `publicUrl` must prefix keys with. */
  publicBaseUrl: string;
  /** Removes the test's objects. */
  cleanup: () => Promise<void>;
}

/** Keys a store must refuse before touching storage: traversal, absolute paths, odd segments. */
export const UNSAFE_KEYS: readonly string[] = [
  '',
  '../escape',
  'a/../../escape',
  'a/..',
  '..',
  '/etc/passwd',
  'a//b',
  'a/b/',
  './a',
  'a/./b',
  '.hidden',
  'a/.meta',
  'a\\..\\b',
  '%2e%2e/escape',
  'a b',
  'a\nb',
  'a\0b',
];

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * The behaviour every ObjectStore adapter must have. Keys are unique per test, so adapters backed by a
 * shared server can run it too.
 */
export function describeObjectStoreContract(
  name: string,
  makeStore: () => Promise<ObjectStoreContext>,
): void {
  describe(`ObjectStore contract: ${name}`, () => {
    let ctx: ObjectStoreContext;
    let store: ObjectStore;
    const key = (file = 'image.webp') => `users/acc_${randomUUID().slice(0, 8)}/generations/${file}`;

    beforeEach(async () => {
      ctx = await makeStore();
      store = ctx.store;
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    it('stores bytes with their content type and returns them unchanged', async () => {
      const k = key();
      const body = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await store.put('public', k, body, 'image/webp');
      expect(await store.get('public', k)).toEqual({ body, contentType: 'image/webp' });
    });

    it('stores an empty object', async () => {
      const k = key('empty.bin');
      await store.put('private', k, Buffer.alloc(0), 'application/octet-stream');
      expect(await store.get('private', k)).toEqual({
        body: Buffer.alloc(0),
        contentType: 'application/octet-stream',
      });
    });

    it('returns nothing for an object that does not exist', async () => {
      expect(await store.get('public', key())).toBeUndefined();
      expect(await store.stream('public', key())).toBeUndefined();
    });

    it('keeps the buckets apart', async () => {
      const k = key();
      await store.put('public', k, Buffer.from('public'), 'text/plain');
      await store.put('private', k, Buffer.from('private'), 'text/plain; charset=utf-8');
      expect((await store.get('public', k))!.body.toString()).toBe('public');
      expect(await store.get('private', k)).toEqual({
        body: Buffer.from('private'),
        contentType: 'text/plain; charset=utf-8',
      });
      await store.delete('public', k);
      expect(await store.get('private', k)).toBeDefined();
    });

    it('replaces an object and its content type on put', async () => {
      const k = key('image');
      await store.put('public', k, Buffer.from('first version'), 'image/png');
      await store.put('public', k, Buffer.from('second'), 'image/webp');
      expect(await store.get('public', k)).toEqual({
        body: Buffer.from('second'),
        contentType: 'image/webp',
      });
    });

    it('streams an object with its size and content type', async () => {
      const k = key('large.png');
      const body = randomBytes(3 * 1024 * 1024 + 17);
      await store.put('public', k, body, 'image/png');
      const found = await store.stream('public', k);
      expect(found).toBeDefined();
      expect(found!.size).toBe(body.length);
      expect(found!.contentType).toBe('image/png');
      expect((await readAll(found!.stream)).equals(body)).toBe(true);
    });

    it('deletes an object; deleting a missing one is a no-op', async () => {
      const k = key();
      await store.put('public', k, Buffer.from('x'), 'image/webp');
      await store.delete('public', k);
      expect(await store.get('public', k)).toBeUndefined();
      await store.delete('public', k);
      await store.delete('private', key());
    });

    it('lists the objects under a prefix with their modification times, sidecars and others left out', async () => {
      const root = `uploads/acc_${randomUUID().slice(0, 8)}/`;
      const before = Date.now() - 60_000;
      await store.put('private', `${root}job_1/photo`, Buffer.from('p'), 'image/png');
      await store.put('private', `${root}job_2/logo`, Buffer.from('l'), 'image/png');
      await store.put('public', `${root}job_3/photo`, Buffer.from('x'), 'image/png');
      const listed = await store.list('private', root);
      expect(listed.map((o) => o.key).sort()).toEqual([`${root}job_1/photo`, `${root}job_2/logo`]);
      for (const object of listed) expect(object.modifiedAt.getTime()).toBeGreaterThan(before);
      await store.delete('private', `${root}job_1/photo`);
      expect((await store.list('private', root)).map((o) => o.key)).toEqual([`${root}job_2/logo`]);
      expect(await store.list('private', `uploads/acc_${randomUUID().slice(0, 8)}/`)).toEqual([]);
    });

    it('refuses a listing prefix that is not whole safe segments', async () => {
      await expect(store.list('private', 'uploads')).rejects.toThrow(/unsafe object prefix/);
      await expect(store.list('private', '../')).rejects.toThrow(/unsafe/);
    });

    it('ends concurrent puts of one key with one whole version, never a mix', async () => {
      const k = key();
      const versions = Array.from({ length: 12 }, (_, i) => Buffer.alloc(256 * 1024, i));
      await Promise.all(versions.map((body) => store.put('public', k, body, 'image/webp')));
      const { body } = (await store.get('public', k))!;
      expect(versions.some((v) => v.equals(body))).toBe(true);
    });

    it('builds public links as <publicBaseUrl>/<key>', () => {
      const k = key();
      expect(store.publicUrl(k)).toBe(`${ctx.publicBaseUrl}/${k}`);
    });

    it.each(UNSAFE_KEYS.map((k) => [JSON.stringify(k), k]))(
      'refuses the unsafe key %s everywhere',
      async (_, k) => {
        await expect(store.put('public', k, Buffer.from('x'), 'text/plain')).rejects.toThrow(
          /unsafe object key/,
        );
        await expect(store.get('public', k)).rejects.toThrow(/unsafe object key/);
        await expect(store.stream('public', k)).rejects.toThrow(/unsafe object key/);
        await expect(store.delete('public', k)).rejects.toThrow(/unsafe object key/);
        expect(() => store.publicUrl(k)).toThrow(/unsafe object key/);
      },
    );

    it('refuses unknown buckets', async () => {
      await expect(store.put('other' as Bucket, key(), Buffer.from('x'), 'text/plain')).rejects.toThrow();
      await expect(store.get('other' as Bucket, key())).rejects.toThrow();
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
