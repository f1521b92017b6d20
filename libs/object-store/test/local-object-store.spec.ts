import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalObjectStore } from '../src/index.js';
import { describeObjectStoreContract, UNSAFE_KEYS } from '../src/testing/index.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'thumbforge-objects-'));
}

describeObjectStoreContract('LocalObjectStore', async () => {
  const dir = await tempDir();
  const publicBaseUrl = 'http://localhost:3000/cdn';
  return {
    store: new LocalObjectStore({ dir, publicBaseUrl }),
    publicBaseUrl,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

/** Every file under `dir`, relative, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('LocalObjectStore', () => {
  let root: string;
  let dir: string;
  let store: LocalObjectStore;

  beforeEach(async () => {
    root = await tempDir();
    dir = join(root, 'objects');
    store = new LocalObjectStore({ dir, publicBaseUrl: 'https://cdn.example.com/' });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('lays objects out as <dir>/<bucket>/<key>, with a content-type sidecar unless the extension says it', async () => {
    await store.put('public', 'users/acc_1/generations/gen_1.webp', Buffer.from('img'), 'image/webp');
    await store.put('private', 'assets/acc_1/photo/upl_1', Buffer.from('photo'), 'image/jpeg');
    await store.put('private', 'results/job_1.png', Buffer.from('text'), 'text/plain');
    expect(await filesUnder(dir)).toEqual([
      'private/assets/acc_1/photo/.upl_1.meta.json',
      'private/assets/acc_1/photo/upl_1',
      'private/results/.job_1.png.meta.json',
      'private/results/job_1.png',
      'public/users/acc_1/generations/gen_1.webp',
    ]);
    expect(await readFile(join(dir, 'public/users/acc_1/generations/gen_1.webp'), 'utf8')).toBe('img');
    expect(await readdir(join(dir, '.tmp'))).toEqual([]);
  });

  it.each([
    ['users/acc_1/generations/gen_1.webp', 'image/webp'],
    ['users/acc_1/og/abc.png', 'image/png'],
    ['assets/acc_1/photo/upl_1.jpg', 'image/jpeg'],
    ['assets/acc_1/photo/upl_1.jpeg', 'image/jpeg'],
    ['assets/acc_1/photo/upl_1', 'image/jpeg'],
    ['results/job_1.png', 'image/webp'],
    ['results/job_1.webp.bin', 'image/webp'],
    ['dotted.webp/job_1', 'image/webp'],
  ])('reads %s back as %s once the store restarts, sidecar or not', async (key, contentType) => {
    await store.put('public', key, Buffer.from('x'), contentType);
    // A store started afterwards, which has only the disk to go by.
    const restarted = new LocalObjectStore({ dir, publicBaseUrl: 'https://cdn.example.com/' });
    expect((await restarted.get('public', key))!.contentType).toBe(contentType);
    const streamed = (await restarted.stream('public', key))!;
    streamed.stream.destroy();
    expect(streamed.contentType).toBe(contentType);
  });

  it('drops the sidecar of an earlier version when the next one has the type its extension says', async () => {
    const key = 'users/acc_1/og/abc.png';
    const sidecar = join(dir, 'public/users/acc_1/og/.abc.png.meta.json');
    await store.put('public', key, Buffer.from('first'), 'image/webp');
    expect(JSON.parse(await readFile(sidecar, 'utf8'))).toEqual({ contentType: 'image/webp' });
    await store.put('public', key, Buffer.from('second'), 'image/png');
    await expect(readFile(sidecar)).rejects.toMatchObject({ code: 'ENOENT' });
    const restarted = new LocalObjectStore({ dir, publicBaseUrl: 'https://cdn.example.com/' });
    expect(await restarted.get('public', key)).toEqual({
      body: Buffer.from('second'),
      contentType: 'image/png',
    });
  });

  it('keeps reading the sidecar an older version of the store wrote for an image key', async () => {
    const key = 'users/acc_1/generations/gen_1.webp';
    await store.put('public', key, Buffer.from('img'), 'image/webp');
    await writeFile(
      join(dir, 'public/users/acc_1/generations/.gen_1.webp.meta.json'),
      JSON.stringify({ contentType: 'image/webp; q=1' }),
    );
    const restarted = new LocalObjectStore({ dir, publicBaseUrl: 'https://cdn.example.com/' });
    expect((await restarted.get('public', key))!.contentType).toBe('image/webp; q=1');
  });

  it('writes nothing outside its directory for any unsafe key', async () => {
    await writeFile(join(root, 'escape'), 'outside');
    for (const key of UNSAFE_KEYS) {
      await expect(store.put('public', key, Buffer.from('x'), 'text/plain')).rejects.toThrow(
        /unsafe object key/,
      );
      await expect(store.delete('public', key)).rejects.toThrow(/unsafe object key/);
    }
    expect(await readFile(join(root, 'escape'), 'utf8')).toBe('outside');
    expect(await readdir(root)).toEqual(['escape']);
  });

  it('drops a trailing slash of the public base URL', () => {
    expect(store.publicUrl('users/acc_1/generations/gen_1.png')).toBe(
      'https://cdn.example.com/users/acc_1/generations/gen_1.png',
    );
  });

  it('refuses content types that could not be a header value', async () => {
    for (const contentType of ['', 'image', 'image/png\r\nX-Evil: 1', 'bild/pñg']) {
      await expect(store.put('public', 'a.png', Buffer.from('x'), contentType)).rejects.toThrow(
        /content type/,
      );
    }
  });

  it('falls back to application/octet-stream when the sidecar is missing', async () => {
    await store.put('private', 'uploads/a.bin', Buffer.from('x'), 'image/png');
    await rm(join(dir, 'private/uploads/.a.bin.meta.json'));
    // A store started afterwards, which has only the disk to go by.
    const restarted = new LocalObjectStore({ dir, publicBaseUrl: 'https://cdn.example.com/' });
    expect((await restarted.get('private', 'uploads/a.bin'))!.contentType).toBe('application/octet-stream');
  });

  it('reports a key that names a directory of other objects as missing', async () => {
    await store.put('public', 'users/acc_1/a.png', Buffer.from('x'), 'image/png');
    expect(await store.get('public', 'users/acc_1')).toBeUndefined();
    expect(await store.stream('public', 'users/acc_1')).toBeUndefined();
    expect(await store.get('public', 'users/acc_1/a.png/b')).toBeUndefined();
  });

  it('answers a read of a recent write from memory, with copies, until a delete or the next put', async () => {
    const key = 'results/job_1.webp';
    await store.put('private', key, Buffer.from('first'), 'image/webp');
    // Gone from disk behind the store's back: still answered, so it came from memory.
    await rm(join(dir, 'private/results/job_1.webp'));
    const read = (await store.get('private', key))!;
    expect(read).toEqual({ body: Buffer.from('first'), contentType: 'image/webp' });
    read.body.write('X');
    expect((await store.get('private', key))!.body.toString()).toBe('first');

    await store.put('private', key, Buffer.from('second'), 'image/png');
    expect(await store.get('private', key)).toEqual({
      body: Buffer.from('second'),
      contentType: 'image/png',
    });
    await store.delete('private', key);
    expect(await store.get('private', key)).toBeUndefined();
  });

  it('keeps neither an object above 1 MB nor more than 1 MB of recent writes in memory', async () => {
    const big = Buffer.alloc(1024 * 1024 + 1, 1);
    await store.put('private', 'big.bin', big, 'application/octet-stream');
    await rm(join(dir, 'private/big.bin'));
    expect(await store.get('private', 'big.bin')).toBeUndefined();

    const part = Buffer.alloc(256 * 1024, 2);
    for (let i = 0; i < 5; i++) await store.put('private', `part-${i}.bin`, part, 'application/octet-stream');
    for (let i = 0; i < 5; i++) await rm(join(dir, `private/part-${i}.bin`));
    expect(await store.get('private', 'part-0.bin')).toBeUndefined();
    for (let i = 1; i < 5; i++)
      expect((await store.get('private', `part-${i}.bin`))?.body.equals(part)).toBe(true);
  });

  it.each([
    ['written on the calling thread', 256 * 1024],
    ['written on the thread pool', 256 * 1024 + 1],
  ])('puts an object %s (%i bytes) whole, and leaves no temporary file when it cannot', async (_, size) => {
    const body = Buffer.alloc(size, 3);
    // The directories do not exist yet: the first write creates them.
    await store.put('private', 'assets/acc_1/photo/upl_1.png', body, 'image/png');
    const restarted = new LocalObjectStore({ dir, publicBaseUrl: 'https://cdn.example.com/' });
    expect((await restarted.get('private', 'assets/acc_1/photo/upl_1.png'))!.body.equals(body)).toBe(true);

    // A file where the key needs a directory: the rename fails, and the temporary file goes too.
    await expect(
      store.put('private', 'assets/acc_1/photo/upl_1.png/x.png', body, 'image/png'),
    ).rejects.toThrow(/ENOTDIR/);
    expect(await readdir(join(dir, '.tmp'))).toEqual([]);
    expect(await filesUnder(join(dir, 'private'))).toEqual(['assets/acc_1/photo/upl_1.png']);
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => new LocalObjectStore({ dir, publicBaseUrl: 'cdn' })).toThrow(TypeError);
  });
});
