import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, dataDirError, loadConfig, longestRequestMs } from '../src/config.js';

const base = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), 'tf-config-')) });

describe('loadConfig', () => {
  it('gives working defaults for embedded mode and creates a key-encryption secret once', () => {
    const env = base();
    const config = loadConfig(env);
    expect(config).toMatchObject({
      mode: 'embedded',
      port: 3000,
      cdnUrl: 'http://localhost:3000/cdn',
      adminToken: null,
    });
    expect(config.webhookRetryDelaysMs).toEqual([10_000, 60_000, 360_000]);
    expect(config.webhookTimeoutMs).toBe(10_000);
    expect(config.webhookPlans).toEqual(['pro', 'business']);
    expect(config.renderCacheBytes).toBe(96 * 1024 * 1024);
    expect(config.mallocTrimIntervalMs).toBe(1_000);
    expect(config.rateLimits).toEqual({ free: 1, creator: 2, pro: 5, business: 20 });
    expect(config.keyEncryptionSecret).toHaveLength(32);
    expect(config).toMatchObject({
      generationModel: 'local',
      imageModelUrl: null,
      imageModelApiKey: null,
      imageModelName: 'gpt-image-1',
      imageModelTimeoutMs: 45_000,
      imageModelFallback: 'local',
    });
    expect(loadConfig(env).keyEncryptionSecret.equals(config.keyEncryptionSecret)).toBe(true);
  });

  it.each([
    [{ PORT: 'abc' }, /^PORT: must be a whole number/],
    [{ PORT: '70000' }, /^PORT: must be between 0 and 65535/],
    [{ THUMBFORGE_MODE: 'swarm' }, /^THUMBFORGE_MODE: must be one of embedded, cluster/],
    [{ THUMBFORGE_MODE: 'cluster' }, /^KEY_ENCRYPTION_SECRET: is required in cluster mode/],
    [{ KEY_ENCRYPTION_SECRET: 'short' }, /^KEY_ENCRYPTION_SECRET: must be 32 bytes/],
    [{ ADMIN_TOKEN: 'tiny' }, /^ADMIN_TOKEN: must be at least 16 characters/],
    [{ CDN_URL: 'not a url' }, /^CDN_URL: must be an absolute URL/],
    [{ WEBHOOK_PLANS: 'pro,gold' }, /^WEBHOOK_PLANS: unknown plan "gold"/],
    [{ WEBHOOK_RETRY_DELAYS_MS: '1,2' }, /^WEBHOOK_RETRY_DELAYS_MS: must be three/],
    [{ WEBHOOK_ALLOW_PRIVATE: 'maybe' }, /^WEBHOOK_ALLOW_PRIVATE: must be 1\/true\/yes/],
    [{ RATE_LIMITS: 'free=0' }, /^RATE_LIMITS: expected plan=requestsPerSecond/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL: must be one of/],
    [{ GENERATION_MODEL: 'dalle' }, /^GENERATION_MODEL: must be one of local, openai/],
    [{ GENERATION_MODEL: 'openai' }, /^IMAGE_MODEL_URL: is required when GENERATION_MODEL=openai$/],
    [{ IMAGE_MODEL_URL: 'ftp://models.example' }, /^IMAGE_MODEL_URL: must be an http or https URL/],
    [{ IMAGE_MODEL_TIMEOUT_MS: '0' }, /^IMAGE_MODEL_TIMEOUT_MS: must be between 1 and 600000/],
    [{ IMAGE_MODEL_FALLBACK: 'retry' }, /^IMAGE_MODEL_FALLBACK: must be one of local, none/],
    [{ DATA_DIR: '/proc/self/thumbforge' }, /^DATA_DIR: \/proc\/self\/thumbforge is on a kernel filesystem/],
    [{ DATA_DIR: '/sys' }, /^DATA_DIR: \/sys is on a kernel filesystem/],
    [{ DATA_DIR: '/dev/shm/tf' }, /^DATA_DIR: \/dev\/shm\/tf is on a kernel filesystem/],
    [{ DATA_DIR: '/etc/passwd/data' }, /^DATA_DIR: \/etc\/passwd\/data is not a directory \(ENOTDIR\)$/],
    [{ TRUSTED_PROXIES: 'everyone' }, /^TRUSTED_PROXIES: expected IP addresses, CIDR ranges/],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, /^TRUSTED_PROXIES: expected/],
    [{ TRUSTED_PROXIES: '10.0.0.1,,' }, /^TRUSTED_PROXIES: expected/],
    [{ SHUTDOWN_DELAY_MS: '-1' }, /^SHUTDOWN_DELAY_MS: must be/],
    [{ SNAPSHOT_EVERY_DOCUMENTS: '1e3' }, /^SNAPSHOT_EVERY_DOCUMENTS: must be a whole number/],
    [{ MALLOC_TRIM_INTERVAL_MS: '-5' }, /^MALLOC_TRIM_INTERVAL_MS: must be/],
    [{ RENDER_CACHE_MB: '5000' }, /^RENDER_CACHE_MB: must be between 0 and 4096/],
    [{ RENDER_CACHE_MB: 'lots' }, /^RENDER_CACHE_MB: must be a whole number/],
    [
      { GENERATION_MODEL: 'openai', IMAGE_MODEL_URL: 'http://m.example', IMAGE_MODEL_TIMEOUT_MS: '60000' },
      /^IMAGE_MODEL_TIMEOUT_MS: must be shorter than RENDER_TIMEOUT_MS \(60000\)/,
    ],
  ])('refuses %j with one line naming the setting', (env, message) => {
    let error: unknown;
    try {
      loadConfig({ ...base(), ...env });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('trusts no proxy by default and reads a list of proxies', () => {
    expect(loadConfig(base()).trustedProxies).toBe(false);
    expect(loadConfig({ ...base(), TRUSTED_PROXIES: ' ' }).trustedProxies).toBe(false);
    expect(
      loadConfig({ ...base(), TRUSTED_PROXIES: 'loopback, 10.0.0.0/8,fd00::/8,192.168.1.7' }).trustedProxies,
    ).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '192.168.1.7']);
  });

  it.each([
    ['EACCES', 'is not writable (EACCES)'],
    ['EROFS', 'is not writable (EROFS)'],
    ['ENOTDIR', 'is not a directory (ENOTDIR)'],
    ['ENOSPC', 'has no space left (ENOSPC)'],
    ['EIO', 'cannot be used (EIO)'],
  ])('names DATA_DIR for a file-system failure %s', (code, reason) => {
    const error = dataDirError('/srv/tf', Object.assign(new Error('x'), { code }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(`DATA_DIR: /srv/tf ${reason}`);
  });

  it('bounds the grace period by the longest request the settings allow', () => {
    expect(longestRequestMs(loadConfig(base()))).toBe(180_000);
    expect(longestRequestMs(loadConfig({ ...base(), SYNC_TIMEOUT_MS: '1000' }))).toBe(61_000);
  });

  it('keeps a smaller pixel cache in a cluster replica, which RENDER_CACHE_MB still sets', () => {
    const cluster = { ...base(), THUMBFORGE_MODE: 'cluster', KEY_ENCRYPTION_SECRET: 'ab'.repeat(32) };
    expect(loadConfig(cluster).renderCacheBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ ...cluster, RENDER_CACHE_MB: '96' }).renderCacheBytes).toBe(96 * 1024 * 1024);
  });

  it('reads overrides', () => {
    const config = loadConfig({
      ...base(),
      PORT: '8080',
      WEBHOOK_RETRY_DELAYS_MS: '10,20,40',
      RATE_LIMITS: 'free=3',
      WEBHOOK_PLANS: 'business',
      RENDER_CACHE_MB: '0',
    });
    expect(config.renderCacheBytes).toBe(0);
    expect(config.cdnUrl).toBe('http://localhost:8080/cdn');
    expect(config.webhookRetryDelaysMs).toEqual([10, 20, 40]);
    expect(config.rateLimits.free).toBe(3);
    expect(config.webhookPlans).toEqual(['business']);
  });

  it('reads the image model settings, accepting a base address given with /v1', () => {
    const config = loadConfig({
      ...base(),
      GENERATION_MODEL: 'openai',
      IMAGE_MODEL_URL: 'https://images.example.test/v1/',
      IMAGE_MODEL_API_KEY: 'sk-test',
      IMAGE_MODEL_NAME: 'dall-e-3',
      IMAGE_MODEL_TIMEOUT_MS: '20000',
      IMAGE_MODEL_FALLBACK: 'none',
      RENDER_TIMEOUT_MS: '15000',
    });
    expect(config).toMatchObject({
      generationModel: 'openai',
      imageModelUrl: 'https://images.example.test',
      imageModelApiKey: 'sk-test',
      imageModelName: 'dall-e-3',
      imageModelTimeoutMs: 20_000,
      imageModelFallback: 'none',
      renderTimeoutMs: 15_000,
    });
  });
});
