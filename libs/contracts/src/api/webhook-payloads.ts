import type { Dimensions, Format, OutputFormat } from '../formats.js';

/** Spec §6.2 `generation.completed`; `data` is the generation result of §2.3. */
export interface GenerationCompletedWebhook {
  event: 'generation.completed';
  jobId: string;
  data: {
    image: string;
    format: Format;
    outputFormat: OutputFormat;
    generationId: string;
    imageUrl: string | null;
    dimensions: Dimensions;
  };
  timestamp: string;
}

/** Spec §6.2 `generation.failed`. */
export interface GenerationFailedWebhook {
  event: 'generation.failed';
  jobId: string;
  error: string;
  timestamp: string;
}

export type WebhookBody = GenerationCompletedWebhook | GenerationFailedWebhook;

export const SIGNATURE_HEADER = 'X-Service-Signature';
