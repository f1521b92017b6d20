import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptApiKey, encryptApiKey, generateApiKey, hashApiKey } from '../src/api-keys.js';

describe('API keys', () => {
  it('have the tf_live_ prefix and 32 base62 characters', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(/^tf_live_[0-9A-Za-z]{32}$/);
  });
  it('round-trip through AES-256-GCM and fail under another secret', () => {
    const secret = randomBytes(32);
    const key = generateApiKey();
    const ciphertext = encryptApiKey(key, secret);
    expect(ciphertext).not.toContain(key);
    expect(decryptApiKey(ciphertext, secret)).toBe(key);
    expect(() => decryptApiKey(ciphertext, randomBytes(32))).toThrow();
  });
  it('hash to a stable SHA-256 hex digest', () => {
    expect(hashApiKey('tf_live_x')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('tf_live_x')).toBe(hashApiKey('tf_live_x'));
  });
});
