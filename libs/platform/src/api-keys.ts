import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';

export const API_KEY_PREFIX = 'tf_live_';
export const PUBLIC_TEST_KEY = 'tf_test_public';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `tf_live_` + 32 random base62 characters (DESIGN §5). */
export function generateApiKey(): string {
  let out = API_KEY_PREFIX;
  for (let i = 0; i < 32; i++) out += BASE62[randomInt(62)];
  return out;
}

/** A Standard Webhooks secret: `whsec_` and base64 of 24 random bytes (the spec allows 24 to 64). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The secret of an account's signed image URLs: `tfus_` and 32 random base62 characters. */
export function generateUrlSigningSecret(): string {
  let out = 'tfus_';
  for (let i = 0; i < 32; i++) out += BASE62[randomInt(62)];
  return out;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** AES-256-GCM: iv(12) | tag(16) | ciphertext, base64. */
export function encryptApiKey(key: string, secret: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv);
  const body = Buffer.concat([cipher.update(key, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function decryptApiKey(ciphertext: string, secret: Buffer): string {
  const raw = Buffer.from(ciphertext, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', secret, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
