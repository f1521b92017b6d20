import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_WEBHOOK_PLANS, PLAN_TERMS, PLANS, type Plan } from '@thumbforge/contracts';

export type Mode = 'embedded' | 'cluster';

export interface Config {
  mode: Mode;
  port: number;
  host: string;
  dataDir: string;
  /** null: the admin API is off (start-up says so). */
  adminToken: string | null;
  cdnUrl: string;
  /** 32 bytes; encrypts API keys at rest (AES-256-GCM). */
  keyEncryptionSecret: Buffer;
  webhookPlans: Plan[];
  webhookTimeoutMs: number;
  webhookRetryDelaysMs: number[];
  webhookAllowPrivate: boolean;
  renderTimeoutMs: number;
  /** Renders run at once on the file log (Kafka: one per partition at a time); each encode takes a libvips thread. */
  renderConcurrency: number;
  /** Bytes the design engine's pixel caches (backgrounds, photos, logos, emoji) may hold together. */
  renderCacheBytes: number;
  /** Wait for a sync generation before answering 500. */
  syncTimeoutMs: number;
  publicTestKeyEnabled: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `always`: fsync every append before acknowledging it. `never`: leave it to the OS (benchmarks only). */
  logFsync: 'always' | 'never';
  /** Requests per second per key, by plan (RATE_LIMITS=free=1,creator=2,...; unset plans keep the defaults). */
  rateLimits: Record<Plan, number>;
  /** `local`: the built-in design engine. `openai`: an external OpenAI-compatible images API. */
  generationModel: 'local' | 'openai';
  /** Base address of the images API (`/v1/images/...` is appended); required for `openai`. */
  imageModelUrl: string | null;
  /** Sent as a Bearer token; null sends no Authorization header (self-hosted servers). */
  imageModelApiKey: string | null;
  imageModelName: string;
  /** One call to the images API; a call taking longer counts as a failure of the circuit breaker. */
  imageModelTimeoutMs: number;
  /** `local`: render with the built-in engine when the images API fails or its circuit is open. */
  imageModelFallback: 'local' | 'none';
  /**
   * Express' `trust proxy`: which peers may set X-Forwarded-For (the client address the public test
   * key is limited by). false (the default) trusts none, so a client cannot pick its own address.
   */
  trustedProxies: false | string[];
  /** After SIGTERM: how long readiness answers 503 while the process still serves, before it closes. */
  shutdownDelayMs: number;
  /**
   * Embedded mode: once this many read model documents are held in memory (written, or read from the
   * last projection snapshot, since it), write one while running and read the unchanged ones from it;
   * 0 writes one only at stop.
   */
  snapshotEveryDocuments: number;
  /** How often malloc's arenas are trimmed (ms); 0 never. */
  mallocTrimIntervalMs: number;
}

/** A bad or missing setting: start-up prints this one line and exits. */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/** Readers of one setting each; every failure names the setting in one line. */
export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim()))
    throw new ConfigError(name, `must be a whole number, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `must be 1/true/yes or 0/false/no, got ${JSON.stringify(raw)}`);
}

export function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!values.includes(raw as T))
    throw new ConfigError(name, `must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

function url(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  return absoluteUrl(name, raw);
}

function absoluteUrl(name: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute URL, got ${JSON.stringify(raw)}`);
  }
  if (!['http:', 'https:'].includes(parsed.protocol))
    throw new ConfigError(name, 'must be an http or https URL');
  return raw.replace(/\/+$/, '');
}

/**
 * The 32-byte key-encryption secret. Cluster mode must be given one (every replica needs the same);
 * embedded mode creates one in DATA_DIR on first start so `npm start` works on a bare machine.
 */
function keyEncryptionSecret(env: Env, mode: Mode, dataDir: string): Buffer {
  const raw = env.KEY_ENCRYPTION_SECRET;
  if (raw) {
    const decoded = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (decoded.length !== 32)
      throw new ConfigError('KEY_ENCRYPTION_SECRET', 'must be 32 bytes, as 64 hex or 44 base64 characters');
    return decoded;
  }
  if (mode === 'cluster')
    throw new ConfigError('KEY_ENCRYPTION_SECRET', 'is required in cluster mode (32 bytes, hex or base64)');
  const file = join(dataDir, 'key-encryption.secret');
  try {
    if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32);
    writeFileSync(file, secret.toString('hex'), { mode: 0o600 });
    return secret;
  } catch (error) {
    throw dataDirError(dataDir, error);
  }
}

function rateLimits(env: Env): Record<Plan, number> {
  const limits = Object.fromEntries(PLANS.map((p) => [p, PLAN_TERMS[p].ratePerSecond])) as Record<
    Plan,
    number
  >;
  const raw = env.RATE_LIMITS;
  if (!raw) return limits;
  for (const pair of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [plan, value] = pair.split('=').map((p) => p.trim());
    if (!PLANS.includes(plan as Plan) || !value || !/^\d+$/.test(value) || Number(value) < 1) {
      throw new ConfigError(
        'RATE_LIMITS',
        `expected plan=requestsPerSecond pairs such as free=1,pro=5; got ${JSON.stringify(pair)}`,
      );
    }
    limits[plan as Plan] = Number(value);
  }
  return limits;
}

interface ImageModelSettings {
  generationModel: Config['generationModel'];
  imageModelUrl: string | null;
  imageModelApiKey: string | null;
  imageModelName: string;
  imageModelTimeoutMs: number;
  imageModelFallback: Config['imageModelFallback'];
}

function imageModel(env: Env, renderTimeoutMs: number): ImageModelSettings {
  const generationModel = oneOf(env, 'GENERATION_MODEL', ['local', 'openai'] as const, 'local');
  const rawUrl = env.IMAGE_MODEL_URL;
  // The base address; a trailing /v1 (as OpenAI's own clients take it) is accepted too.
  const imageModelUrl = rawUrl ? absoluteUrl('IMAGE_MODEL_URL', rawUrl).replace(/\/v1$/, '') : null;
  if (generationModel === 'openai' && imageModelUrl === null)
    throw new ConfigError('IMAGE_MODEL_URL', 'is required when GENERATION_MODEL=openai');
  const imageModelTimeoutMs = integer(env, 'IMAGE_MODEL_TIMEOUT_MS', 45_000, 1, 600_000);
  const imageModelFallback = oneOf(env, 'IMAGE_MODEL_FALLBACK', ['local', 'none'] as const, 'local');
  // A fallback render has to fit in what is left of the job's own deadline.
  if (
    generationModel === 'openai' &&
    imageModelFallback === 'local' &&
    imageModelTimeoutMs >= renderTimeoutMs
  )
    throw new ConfigError(
      'IMAGE_MODEL_TIMEOUT_MS',
      `must be shorter than RENDER_TIMEOUT_MS (${renderTimeoutMs}) so the local fallback has time to render`,
    );
  return {
    generationModel,
    imageModelUrl,
    imageModelApiKey: env.IMAGE_MODEL_API_KEY || null,
    imageModelName: env.IMAGE_MODEL_NAME || 'gpt-image-1',
    imageModelTimeoutMs,
    imageModelFallback,
  };
}

/** Kernel filesystems: writing there hangs or does something else entirely. */
const PSEUDO_FILESYSTEMS = ['/proc', '/sys', '/dev'];

function dataDirectory(env: Env): string {
  const dir = resolve(env.DATA_DIR || '.data');
  if (PSEUDO_FILESYSTEMS.some((root) => dir === root || dir.startsWith(`${root}/`))) {
    throw new ConfigError('DATA_DIR', `${dir} is on a kernel filesystem; choose a directory on a disk`);
  }
  return dir;
}

/** A file-system failure under DATA_DIR, as the one line naming the setting. */
export function dataDirError(dir: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
      ? 'is not writable'
      : code === 'ENOTDIR' || code === 'EEXIST'
        ? 'is not a directory'
        : code === 'ENOSPC'
          ? 'has no space left'
          : 'cannot be used';
  return new ConfigError('DATA_DIR', `${dir} ${reason}${code ? ` (${code})` : ''}`);
}

function trustedProxies(env: Env): false | string[] {
  const raw = env.TRUSTED_PROXIES?.trim();
  if (!raw) return false;
  const entries = raw.split(',').map((entry) => entry.trim());
  const named = ['loopback', 'linklocal', 'uniquelocal'];
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const prefixOk =
      bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address!) === 4 ? 32 : 128));
    if (!(named.includes(entry) || (isIP(address!) !== 0 && prefixOk && extra === undefined))) {
      throw new ConfigError(
        'TRUSTED_PROXIES',
        `expected IP addresses, CIDR ranges or loopback/linklocal/uniquelocal, comma-separated; got ${JSON.stringify(entry)}`,
      );
    }
  }
  return entries;
}

export function loadConfig(env: Env = process.env): Config {
  const mode = oneOf(env, 'THUMBFORGE_MODE', ['embedded', 'cluster'] as const, 'embedded');
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const dataDir = dataDirectory(env);
  const adminToken = env.ADMIN_TOKEN ?? null;
  if (adminToken !== null && adminToken.length < 16)
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');

  const webhookPlans = (env.WEBHOOK_PLANS ?? DEFAULT_WEBHOOK_PLANS.join(','))
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const plan of webhookPlans) {
    if (!PLANS.includes(plan as Plan))
      throw new ConfigError(
        'WEBHOOK_PLANS',
        `unknown plan ${JSON.stringify(plan)}; plans are ${PLANS.join(', ')}`,
      );
  }

  const delaysRaw = env.WEBHOOK_RETRY_DELAYS_MS ?? '10000,60000,360000';
  const webhookRetryDelaysMs = delaysRaw.split(',').map((d) => d.trim());
  if (webhookRetryDelaysMs.length !== 3 || webhookRetryDelaysMs.some((d) => !/^\d+$/.test(d))) {
    throw new ConfigError(
      'WEBHOOK_RETRY_DELAYS_MS',
      `must be three comma-separated millisecond delays, got ${JSON.stringify(delaysRaw)}`,
    );
  }

  const renderTimeoutMs = integer(env, 'RENDER_TIMEOUT_MS', 60_000, 1, 600_000);

  return {
    mode,
    port,
    host: env.HOST || '0.0.0.0',
    dataDir,
    adminToken,
    cdnUrl: url(env, 'CDN_URL', `http://localhost:${port}/cdn`),
    keyEncryptionSecret: keyEncryptionSecret(env, mode, dataDir),
    webhookPlans: webhookPlans as Plan[],
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1, 600_000),
    webhookRetryDelaysMs: webhookRetryDelaysMs.map(Number),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    renderTimeoutMs,
    // Two renders per core: while one composes on the event loop, another's encode runs on libvips'
    // threads (bench:service: +18 % requests/s at 4 and 16 connections over one per core).
    renderConcurrency: integer(env, 'RENDER_CONCURRENCY', 2 * availableParallelism(), 1, 64),
    // Each cached background saves about 30 ms of CPU on the renders that reuse it, and the budget is
    // what a rendering process's RSS grows by (docs/architecture.md, "Memory"). A rendering replica has
    // a 250 MB budget of its own: 64 MiB holds its median under load about 12 MiB lower than 96, for
    // about 6 ms more CPU a render; embedded mode keeps 96 for its throughput.
    renderCacheBytes: integer(env, 'RENDER_CACHE_MB', mode === 'cluster' ? 64 : 96, 0, 4096) * 1024 * 1024,
    syncTimeoutMs: integer(env, 'SYNC_TIMEOUT_MS', 120_000, 1, 600_000),
    publicTestKeyEnabled: flag(env, 'PUBLIC_TEST_KEY_ENABLED', true),
    logLevel: oneOf(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    logFsync: oneOf(env, 'EVENT_LOG_FSYNC', ['always', 'never'] as const, 'always'),
    rateLimits: rateLimits(env),
    ...imageModel(env, renderTimeoutMs),
    trustedProxies: trustedProxies(env),
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 5_000, 0, 60_000),
    // About 4,700 sync requests' documents (9 MB of heap). Saving them took 0.5 s, against the 230 s the
    // requests took at 4 connections; 3 s once the file holds 1,000,000 (docs/architecture.md, "Snapshots").
    snapshotEveryDocuments: integer(env, 'SNAPSHOT_EVERY_DOCUMENTS', 20_000, 0, 10_000_000),
    // A trim takes about 3 ms on libuv's thread pool under load; once a second kept embedded mode's RSS
    // 10–20 MB lower (docs/architecture.md, "Memory").
    mallocTrimIntervalMs: integer(env, 'MALLOC_TRIM_INTERVAL_MS', 1_000, 0, 3_600_000),
  };
}

/** How long the gateway waits for the asset or the billing service to answer one step of a request. */
export const STEP_TIMEOUT_MS = 30_000;

/** Longest a request can take: the assets and credits steps, then the wait for a sync render. */
export function longestRequestMs(config: Pick<Config, 'syncTimeoutMs'>): number {
  return 2 * STEP_TIMEOUT_MS + config.syncTimeoutMs;
}

export const CONFIG = Symbol.for('thumbforge.Config');
