import { randomUUID } from 'node:crypto';
import { constants, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import type { Readable } from 'node:stream';
import {
  assertSafeKey,
  assertSafePrefix,
  type Bucket,
  type ListedObject,
  type ObjectStore,
  type StoredObject,
} from './port.js';

export interface LocalObjectStoreOptions {
  dir: string;
  /** Where `dir/public` is served, e.g. `http://localhost:3000/cdn`. */
  publicBaseUrl: string;
}

const BUCKETS: readonly Bucket[] = ['public', 'private'];
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/**
 * Content types a key's extension stands for. An object stored under one of these with that type gets
 * no sidecar: every render stores one image, and each file created is a new inode, the dearest step
 * of a put in the kernel (`docs/architecture.md`, "What embedded mode spends in the kernel").
 */
const IMPLIED_CONTENT_TYPES: ReadonlyMap<string, string> = new Map([
  ['webp', 'image/webp'],
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
]);

function impliedContentType(key: string): string | undefined {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : IMPLIED_CONTENT_TYPES.get(name.slice(dot + 1));
}

function assertBucket(bucket: Bucket): void {
  if (!BUCKETS.includes(bucket)) throw new TypeError(`unknown bucket ${JSON.stringify(bucket)}`);
}

function assertContentType(contentType: string): void {
  // It ends up in a response header: printable ASCII only, shaped like type/subtype.
  if (
    typeof contentType !== 'string' ||
    !/^[\x21-\x7e]+\/[\x20-\x7e]+$/.test(contentType) ||
    contentType.length > 255
  ) {
    throw new TypeError(`invalid content type ${JSON.stringify(contentType)}`);
  }
}

/** Not-found in any of its shapes: missing file, a directory where the object would be, or a file on the path. */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR';
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/** Runs `write`, and again after creating `dir` if it failed for want of it: most writes find it there. */
function intoDirSync(dir: string, write: () => void): void {
  try {
    write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dir, { recursive: true });
    write();
  }
}

/** `intoDirSync` on the thread pool. */
async function intoDir(dir: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true });
    await write();
  }
}

/**
 * What the store keeps of its latest writes, newest last; an object above the cap is not kept. The
 * read follows its write within milliseconds, so 1 MiB (about 20 youtube sd WebPs) is enough; 8 MiB
 * kept about 15 MiB more of glibc's heap resident in embedded mode, 200 long-lived blocks among the
 * renders' short-lived ones (docs/architecture.md, "Memory").
 */
const RECENT_BYTES = 1024 * 1024;
const RECENT_OBJECT_BYTES = 1024 * 1024;

/**
 * Objects up to this size are written and renamed into place on the calling thread: into the page
 * cache that takes about 40 µs of CPU for a 45 KB image, against 145 µs over the four trips to libuv's
 * thread pool an asynchronous write and rename make. Embedded mode: 2.5 % more requests/s at 4
 * connections (docs/architecture.md, "What embedded mode spends in the kernel"). Larger uploads stay
 * off the event loop.
 */
const SYNC_WRITE_BYTES = 256 * 1024;

/**
 * Objects as files under `dir/<bucket>/<key>`, each with its content type in a sidecar
 * `.<name>.meta.json` beside it (keys never have a segment starting with a dot, so the two cannot
 * collide), unless the key's extension says the type (`gen_1.webp` stored as `image/webp`). Writes go
 * to `dir/.tmp` and are renamed into place, so a reader sees a whole object or none. The sidecar is
 * written (or an earlier one removed) first: a crash in between leaves at worst a type without its
 * object.
 *
 * The latest objects written (up to 1 MiB) are also kept in memory, so the read that usually follows a
 * write (the gateway answering a sync request with the image the renderer has just stored) skips the
 * disk. The store assumes it is the only writer of `dir`, as embedded mode's data directory lock
 * makes it.
 */
export class LocalObjectStore implements ObjectStore {
  private readonly dir: string;
  private readonly tmpDir: string;
  private readonly publicBaseUrl: string;
  private readonly recent = new Map<string, StoredObject>();
  private recentBytes = 0;

  constructor(options: LocalObjectStoreOptions) {
    if (typeof options.dir !== 'string' || options.dir === '') throw new TypeError('dir is required');
    if (!/^https?:\/\/\S+$/.test(options.publicBaseUrl)) {
      throw new TypeError(
        `publicBaseUrl must be an http(s) URL, not ${JSON.stringify(options.publicBaseUrl)}`,
      );
    }
    this.dir = options.dir;
    this.tmpDir = join(options.dir, '.tmp');
    this.publicBaseUrl = options.publicBaseUrl.replace(/\/+$/, '');
  }

  private paths(bucket: Bucket, key: string): { file: string; meta: string } {
    assertBucket(bucket);
    assertSafeKey(key);
    const file = join(this.dir, bucket, ...key.split('/'));
    return { file, meta: join(dirname(file), `.${basename(file)}.meta.json`) };
  }

  private async writeAtomic(target: string, data: Buffer | string): Promise<void> {
    const tmp = join(this.tmpDir, randomUUID());
    try {
      if (data.length <= SYNC_WRITE_BYTES) {
        intoDirSync(this.tmpDir, () => writeFileSync(tmp, data));
        intoDirSync(dirname(target), () => renameSync(tmp, target));
      } else {
        await intoDir(this.tmpDir, () => writeFile(tmp, data));
        await intoDir(dirname(target), () => rename(tmp, target));
      }
    } catch (error) {
      await unlink(tmp).catch(() => undefined);
      throw error;
    }
  }

  private forget(id: string): void {
    const kept = this.recent.get(id);
    if (!kept) return;
    this.recent.delete(id);
    this.recentBytes -= kept.body.length;
  }

  private remember(id: string, object: StoredObject): void {
    this.forget(id);
    if (object.body.length > RECENT_OBJECT_BYTES) return;
    this.recent.set(id, object);
    this.recentBytes += object.body.length;
    for (const [oldest] of this.recent) {
      if (this.recentBytes <= RECENT_BYTES) break;
      this.forget(oldest);
    }
  }

  async put(bucket: Bucket, key: string, body: Buffer, contentType: string): Promise<void> {
    const { file, meta } = this.paths(bucket, key);
    if (!Buffer.isBuffer(body)) throw new TypeError('body must be a Buffer');
    assertContentType(contentType);
    const id = `${bucket}/${key}`;
    // Forgotten first: while the files change, a read goes to them.
    this.forget(id);
    if (impliedContentType(key) === contentType) {
      // Looked up here first: almost no image key ever had a sidecar, and an unlink that fails costs a
      // trip to the thread pool and an error built, 30 µs against 1.
      if (existsSync(meta)) await removeIfPresent(meta);
    } else await this.writeAtomic(meta, JSON.stringify({ contentType }));
    await this.writeAtomic(file, body);
    // A copy: the caller keeps its buffer and may reuse it.
    this.remember(id, { body: Buffer.from(body), contentType });
  }

  /** The sidecar's type; without a readable one, the type the key's extension says, or octet-stream. */
  private async contentType(key: string, meta: string): Promise<string> {
    const fallback = impliedContentType(key) ?? DEFAULT_CONTENT_TYPE;
    let text: string;
    try {
      text = await readFile(meta, 'utf8');
    } catch (error) {
      if (isMissing(error)) return fallback;
      throw error;
    }
    try {
      const { contentType } = JSON.parse(text) as { contentType?: unknown };
      return typeof contentType === 'string' ? contentType : fallback;
    } catch {
      return fallback;
    }
  }

  async get(bucket: Bucket, key: string): Promise<StoredObject | undefined> {
    const { file, meta } = this.paths(bucket, key);
    const kept = this.recent.get(`${bucket}/${key}`);
    if (kept) return { body: Buffer.from(kept.body), contentType: kept.contentType };
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    return { body, contentType: await this.contentType(key, meta) };
  }

  async stream(
    bucket: Bucket,
    key: string,
  ): Promise<{ stream: Readable; contentType: string; size: number } | undefined> {
    const { file, meta } = this.paths(bucket, key);
    let handle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      // The open handle pins this version of the object even if a put replaces it meanwhile.
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        return undefined;
      }
      const contentType = await this.contentType(key, meta);
      return { stream: handle.createReadStream(), contentType, size: stats.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async delete(bucket: Bucket, key: string): Promise<void> {
    const { file, meta } = this.paths(bucket, key);
    this.forget(`${bucket}/${key}`);
    for (const path of [file, meta]) await removeIfPresent(path);
  }

  async list(bucket: Bucket, prefix: string): Promise<ListedObject[]> {
    assertBucket(bucket);
    assertSafePrefix(prefix);
    const root = join(this.dir, bucket);
    let entries;
    try {
      entries = await readdir(join(root, ...prefix.split('/')), { recursive: true, withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const listed: ListedObject[] = [];
    for (const entry of entries) {
      // Sidecars start with a dot; keys never do.
      if (!entry.isFile() || entry.name.startsWith('.')) continue;
      const file = join(entry.parentPath, entry.name);
      try {
        const { mtime } = await stat(file);
        listed.push({
          key: file
            .slice(root.length + 1)
            .split(sep)
            .join('/'),
          modifiedAt: mtime,
        });
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return listed;
  }

  publicUrl(key: string): string {
    assertSafeKey(key);
    return `${this.publicBaseUrl}/${key}`;
  }

  async ping(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await access(this.dir, constants.R_OK | constants.W_OK);
  }
}
