import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './types.js';

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The spec's `X-Service-Signature`: hex HMAC-SHA256 of the body with the API key. */
export function verifyServiceSignature(apiKey: string, body: string, signature: string | undefined): boolean {
  if (!signature) return false;
  const bytes = JSON.stringify(JSON.parse(body));
  return same(createHmac('sha256', apiKey).update(bytes).digest('hex'), signature);
}

/**
 * Standard Webhooks: `webhook-signature` holds `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`
 * entries keyed with the `whsec_` secret; the timestamp must be within `toleranceSeconds` of now.
 */
export function verifyStandardWebhook(
  secret: string,
  body: string,
  headers: HeaderBag,
  options: { toleranceSeconds?: number; now?: Date } = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing Standard Webhooks headers');
  const now = (options.now ?? new Date()).getTime() / 1000;
  const tolerance = options.toleranceSeconds ?? 300;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('timestamp outside the tolerance');
  }
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  const ok = signatures.split(' ').some((entry) => entry.startsWith('v1,') && same(entry.slice(3), expected));
  if (!ok) throw new WebhookVerificationError('no matching signature');
  return JSON.parse(body) as WebhookEvent;
}

/**
 * Verifies a delivery with what the receiver has: the Standard Webhooks secret (preferred: it
 * refuses replays) and/or the API key for `X-Service-Signature`. Throws unless every given one holds.
 */
export function verifyWebhook(
  body: string,
  headers: HeaderBag,
  secrets: { webhookSecret?: string; apiKey?: string; toleranceSeconds?: number; now?: Date },
): WebhookEvent {
  if (!secrets.webhookSecret && !secrets.apiKey) {
    throw new WebhookVerificationError('give webhookSecret or apiKey');
  }
  if (
    secrets.apiKey &&
    !verifyServiceSignature(secrets.apiKey, body, header(headers, 'x-service-signature'))
  ) {
    throw new WebhookVerificationError('X-Service-Signature does not match');
  }
  if (secrets.webhookSecret) return verifyStandardWebhook(secrets.webhookSecret, body, headers, secrets);
  return JSON.parse(body) as WebhookEvent;
}
