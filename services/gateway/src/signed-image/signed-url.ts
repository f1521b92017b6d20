import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed image URLs: `GET /v1/og/{accountId}.{webp|png}?{parameters}&sig={signature}`. The signature
 * is the base64url HMAC-SHA256, keyed with the account's URL signing secret, of the path, `?` and the
 * known parameters sorted by name as `name=value` pairs joined by `&`, each part percent-encoded as
 * JavaScript's encodeURIComponent does. Other parameters (tracking tags added by platforms) are
 * neither signed nor used.
 */
export const SIGNED_IMAGE_PARAMS = [
  'title',
  'format',
  'category',
  'model',
  'usePhoto',
  'useLogo',
  'customAssetsId',
  'exp',
] as const;
export type SignedImageParams = Partial<Record<(typeof SIGNED_IMAGE_PARAMS)[number], string>>;

export function signedImagePath(accountId: string, outputFormat: string): string {
  return `/v1/og/${accountId}.${outputFormat}`;
}

export function canonicalString(path: string, params: SignedImageParams): string {
  const query = SIGNED_IMAGE_PARAMS.filter((name) => params[name] !== undefined)
    .sort()
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(params[name]!)}`)
    .join('&');
  return `${path}?${query}`;
}

export function signatureOf(secret: string, path: string, params: SignedImageParams): string {
  return createHmac('sha256', secret).update(canonicalString(path, params), 'utf8').digest('base64url');
}

/** One stored image per account, output format and generation parameters: the expiry is not one. */
export function parameterSetHash(path: string, params: SignedImageParams): string {
  const { exp: _exp, ...generation } = params;
  return createHash('sha256').update(canonicalString(path, generation), 'utf8').digest('hex');
}

export type SignedUrlVerdict =
  { ok: true } | { ok: false; code: 'INVALID_SIGNATURE' | 'URL_EXPIRED'; message: string };

export function verifySignedUrl(
  secret: string,
  path: string,
  params: SignedImageParams,
  signature: string | undefined,
  now: Date,
): SignedUrlVerdict {
  const expected = Buffer.from(signatureOf(secret, path, params));
  const given = Buffer.from(signature ?? '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, code: 'INVALID_SIGNATURE', message: 'Invalid signature' };
  }
  if (params.exp !== undefined) {
    const exp = Number(params.exp);
    if (!Number.isInteger(exp) || exp * 1000 <= now.getTime()) {
      return { ok: false, code: 'URL_EXPIRED', message: 'This image URL has expired' };
    }
  }
  return { ok: true };
}
