import type { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutBucketPolicyCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import {
  assertSafeKey,
  assertSafePrefix,
  type Bucket,
  type ListedObject,
  type ObjectStore,
  type StoredObject,
} from '../port.js';
import { BREAKER_OPEN, createBreaker, type Breaker, type BreakerOptions } from '@thumbforge/resilience';

export interface S3ObjectStoreOptions {
  /** S3-compatible endpoint (MinIO, Ceph, R2, ...); omit for AWS S3. */
  endpoint?: string;
  region: string;
  /** Static credentials; omit to use the SDK's default chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Bucket names of the two logical buckets. */
  buckets: { public: string; private: string };
  /** Base of `publicUrl` (`{cdn_url}`): a CDN in front of the public bucket, or the bucket's own URL. */
  publicBaseUrl: string;
  /** Path-style addressing (`endpoint/bucket/key`); default true when `endpoint` is set, as MinIO needs. */
  forcePathStyle?: boolean;
  /** Create missing buckets on `open` (default true). */
  createBuckets?: boolean;
  /**
   * Let anyone read the public bucket (a bucket policy allowing s3:GetObject), for a setup where
   * `{cdn_url}` is the bucket itself. Default false: a CDN with its own access to the bucket.
   */
  publicRead?: boolean;
  /** Deadline of one request, after which it is aborted (default 10 s). */
  requestTimeoutMs?: number;
  /** Attempts per request by the SDK, including the first (default 2). */
  maxAttempts?: number;
  /** Circuit breaker around S3 calls (defaults: 5 calls, 10 s reset, 10 s window). */
  breaker?: Partial<BreakerOptions>;
  /** Told when the circuit opens, half-opens or closes. */
  onBreakerChange?: (state: BreakerState) => void;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

/** S3 could not be reached, or the circuit is open and the call was not even tried. */
export class ObjectStoreUnavailableError extends Error {
  constructor(
    message: string,
    /** True when the circuit breaker refused the call without contacting S3. */
    readonly circuitOpen: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ObjectStoreUnavailableError';
  }
}

const BUCKETS: readonly Bucket[] = ['public', 'private'];

function assertBucket(bucket: Bucket): void {
  if (!BUCKETS.includes(bucket)) throw new TypeError(`unknown bucket ${JSON.stringify(bucket)}`);
}

function assertContentType(contentType: string): void {
  // It is served back as a response header: printable ASCII only, shaped like type/subtype.
  if (
    typeof contentType !== 'string' ||
    !/^[\x21-\x7e]+\/[\x20-\x7e]+$/.test(contentType) ||
    contentType.length > 255
  ) {
    throw new TypeError(`invalid content type ${JSON.stringify(contentType)}`);
  }
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string })?.name;
  return name === 'NoSuchKey' || name === 'NotFound' || statusOf(error) === 404;
}

/** A request S3 answered and refused (4xx other than throttling) says nothing about its health. */
function isClientError(error: unknown): boolean {
  const status = statusOf(error);
  return (
    error instanceof S3ServiceException &&
    status !== undefined &&
    status >= 400 &&
    status < 500 &&
    status !== 429
  );
}

/**
 * Objects in S3-compatible storage (`@aws-sdk/client-s3`), in two buckets: `public` (generated images,
 * served under `{cdn_url}/{key}`) and `private` (uploads, saved assets, results). Every call has a
 * deadline and goes through one opossum circuit breaker: while S3 is down the breaker opens and calls
 * fail at once with `ObjectStoreUnavailableError` (callers answer with `imageUrl: null`) instead of each
 * waiting out its timeout; a trial call after `resetTimeoutMs` closes it again. A missing object is not
 * a failure: `get` and `stream` answer undefined, `delete` does nothing.
 */
export class S3ObjectStore implements ObjectStore {
  private readonly client: S3Client;
  private readonly publicBaseUrl: string;
  private readonly requestTimeoutMs: number;
  private readonly breaker: Breaker<[() => Promise<unknown>], unknown>;

  constructor(private readonly options: S3ObjectStoreOptions) {
    if (!/^https?:\/\/\S+$/.test(options.publicBaseUrl)) {
      throw new TypeError(
        `publicBaseUrl must be an http(s) URL, not ${JSON.stringify(options.publicBaseUrl)}`,
      );
    }
    if (
      !options.buckets?.public ||
      !options.buckets?.private ||
      options.buckets.public === options.buckets.private
    ) {
      throw new TypeError('buckets.public and buckets.private must be two different bucket names');
    }
    this.publicBaseUrl = options.publicBaseUrl.replace(/\/+$/, '');
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      credentials: options.credentials,
      forcePathStyle: options.forcePathStyle ?? options.endpoint !== undefined,
      maxAttempts: options.maxAttempts ?? 2,
      requestHandler: {
        connectionTimeout: Math.min(this.requestTimeoutMs, 3_000),
        requestTimeout: this.requestTimeoutMs,
      },
    });
    this.breaker = createBreaker(
      's3',
      (call: () => Promise<unknown>) => call(),
      {
        volumeThreshold: options.breaker?.volumeThreshold ?? 5,
        resetTimeoutMs: options.breaker?.resetTimeoutMs ?? 10_000,
        windowMs: options.breaker?.windowMs ?? 10_000,
      },
      (error) => isNotFound(error) || isClientError(error),
    );
    const notify = options.onBreakerChange;
    if (notify) {
      this.breaker.on('open', () => notify('open'));
      this.breaker.on('halfOpen', () => notify('half-open'));
      this.breaker.on('close', () => notify('closed'));
    }
  }

  /** Makes sure both buckets exist (creating them unless told not to) and applies `publicRead`. */
  async open(): Promise<void> {
    for (const bucket of BUCKETS) {
      const name = this.options.buckets[bucket];
      try {
        await this.client.send(new HeadBucketCommand({ Bucket: name }), this.deadline());
      } catch (error) {
        if (!isNotFound(error) || this.options.createBuckets === false) throw error;
        await this.client
          .send(new CreateBucketCommand({ Bucket: name }), this.deadline())
          .catch((e: unknown) => {
            // Created meanwhile by another process: the outcome we wanted.
            if ((e as { name?: string }).name !== 'BucketAlreadyOwnedByYou') throw e;
          });
      }
    }
    if (this.options.publicRead) {
      const bucket = this.options.buckets.public;
      const policy = {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Principal: '*',
            Action: ['s3:GetObject'],
            Resource: [`arn:aws:s3:::${bucket}/*`],
          },
        ],
      };
      await this.client.send(
        new PutBucketPolicyCommand({ Bucket: bucket, Policy: JSON.stringify(policy) }),
        this.deadline(),
      );
    }
  }

  get breakerState(): BreakerState {
    return this.breaker.opened ? 'open' : this.breaker.halfOpen ? 'half-open' : 'closed';
  }

  async put(bucket: Bucket, key: string, body: Buffer, contentType: string): Promise<void> {
    const name = this.bucketName(bucket);
    assertSafeKey(key);
    assertContentType(contentType);
    await this.call(`upload of ${key}`, () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: name,
          Key: key,
          Body: body,
          ContentType: contentType,
          ContentLength: body.length,
        }),
        this.deadline(),
      ),
    );
  }

  async get(bucket: Bucket, key: string): Promise<StoredObject | undefined> {
    const name = this.bucketName(bucket);
    assertSafeKey(key);
    return this.call(`download of ${key}`, async () => {
      try {
        const found = await this.client.send(
          new GetObjectCommand({ Bucket: name, Key: key }),
          this.deadline(),
        );
        const bytes = await found.Body!.transformToByteArray();
        return { body: Buffer.from(bytes), contentType: found.ContentType ?? 'application/octet-stream' };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
  }

  async stream(
    bucket: Bucket,
    key: string,
  ): Promise<{ stream: Readable; contentType: string; size: number } | undefined> {
    const name = this.bucketName(bucket);
    assertSafeKey(key);
    return this.call(`download of ${key}`, async () => {
      try {
        // No deadline here: it would abort the body while the caller is still streaming it.
        const found = await this.client.send(new GetObjectCommand({ Bucket: name, Key: key }));
        return {
          stream: found.Body as Readable,
          contentType: found.ContentType ?? 'application/octet-stream',
          size: found.ContentLength ?? 0,
        };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
  }

  async delete(bucket: Bucket, key: string): Promise<void> {
    const name = this.bucketName(bucket);
    assertSafeKey(key);
    await this.call(`delete of ${key}`, () =>
      this.client.send(new DeleteObjectCommand({ Bucket: name, Key: key }), this.deadline()),
    );
  }

  async list(bucket: Bucket, prefix: string): Promise<ListedObject[]> {
    const name = this.bucketName(bucket);
    assertSafePrefix(prefix);
    const listed: ListedObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.call(`listing of ${prefix}`, () =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: name, Prefix: prefix, ContinuationToken: token }),
          this.deadline(),
        ),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key) listed.push({ key: object.Key, modifiedAt: object.LastModified ?? new Date(0) });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return listed;
  }

  publicUrl(key: string): string {
    assertSafeKey(key);
    return `${this.publicBaseUrl}/${key}`;
  }

  /** Health: both buckets answer. Bypasses the breaker, so it reports the storage, not the circuit. */
  async ping(): Promise<void> {
    for (const bucket of BUCKETS) {
      await this.client.send(
        new HeadBucketCommand({ Bucket: this.options.buckets[bucket] }),
        this.deadline(),
      );
    }
  }

  close(): void {
    this.breaker.shutdown();
    this.client.destroy();
  }

  private bucketName(bucket: Bucket): string {
    assertBucket(bucket);
    return this.options.buckets[bucket];
  }

  private deadline(): { abortSignal: AbortSignal } {
    return { abortSignal: AbortSignal.timeout(this.requestTimeoutMs) };
  }

  private async call<T>(what: string, action: () => Promise<T>): Promise<T> {
    try {
      return (await this.breaker.fire(action)) as T;
    } catch (error) {
      if ((error as { code?: string }).code === BREAKER_OPEN) {
        throw new ObjectStoreUnavailableError(`${what} not attempted: S3 circuit is open`, true, {
          cause: error,
        });
      }
      if (isClientError(error)) throw error;
      throw new ObjectStoreUnavailableError(`${what} failed: ${(error as Error).message}`, false, {
        cause: error,
      });
    }
  }
}
