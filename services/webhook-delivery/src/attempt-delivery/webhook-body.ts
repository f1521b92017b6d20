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

export function webhookHeaders(
  body: WebhookBody,
  signature: string,
  attempt: number,
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'Thumbforge-Webhook/1',
    [SIGNATURE_HEADER]: signature,
    'X-Thumbforge-Event': body.event,
    'X-Thumbforge-Job-Id': body.jobId,
    'X-Thumbforge-Delivery-Attempt': String(attempt),
  };
}
