import { createHmac } from 'node:crypto';
import { SIGNATURE_HEADER, type WebhookBody, type WebhookOutcome } from '@thumbforge/contracts';

export interface BodyInput {
  jobId: string;
  outcome: WebhookOutcome;
  timestamp: string;
}

/**
 * The spec's §6.2 body, keys in the documented order. `image` is the rendered result for a
 * completed job (the caller reads it from the object store).
 */
export function webhookBody({ jobId, outcome, timestamp }: BodyInput, image?: Buffer): WebhookBody {
  if (outcome.event === 'generation.failed') {
    return { event: 'generation.failed', jobId, error: outcome.error, timestamp };
  }
  if (!image) throw new Error('a completed job needs its image');
  return {
    event: 'generation.completed',
    jobId,
    data: {
      image: `data:image/${outcome.outputFormat};base64,${image.toString('base64')}`,
      format: outcome.format,
      outputFormat: outcome.outputFormat,
      generationId: outcome.generationId,
      imageUrl: outcome.imageUrl,
      dimensions: { width: outcome.width, height: outcome.height },
    },
    timestamp,
  };
}

/** Hex HMAC-SHA256 of the exact body bytes, keyed with the API key (DESIGN §5). */
export function signBody(bodyBytes: string, apiKey: string): string {
  return createHmac('sha256', apiKey).update(bodyBytes, 'utf8').digest('hex');
}

/**
 * Standard Webhooks (standardwebhooks.com): `v1,` and the base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}`, keyed with the base64-decoded part of a `whsec_` secret.
 */
export function standardSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64')}`;
}

/**
 * `webhook-id` (the same on every attempt, so receivers can drop duplicates), `webhook-timestamp` of
 * this attempt (receivers refuse old ones: no replays) and one signature per active secret.
 */
export function standardWebhookHeaders(
  id: string,
  at: Date,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  if (secrets.length === 0) return {};
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => standardSignature(secret, id, timestamp, body)).join(' '),
  };
}

export function webhookHeaders(
  body: WebhookBody,
  signature: string,
  attempt: number,
  standard: Record<string, string> = {},
): Record<string, string> {
  return {
    ...standard,
    'Content-Type': 'application/json',
    'User-Agent': 'Thumbforge-Webhook/1',
    [SIGNATURE_HEADER]: signature,
    'X-Thumbforge-Event': body.event,
    'X-Thumbforge-Job-Id': body.jobId,
    'X-Thumbforge-Delivery-Attempt': String(attempt),
  };
}
