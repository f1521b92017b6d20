/** The request, result and error shapes of the Thumbforge API (checked against its OpenAPI document in the tests). */

export const FORMATS = ['youtube', 'instagram', 'x', 'blogpost', 'linkedin'] as const;
export type Format = (typeof FORMATS)[number];

export const CATEGORIES = [
  'auto',
  'tech-saas',
  'business-finance',
  'education-tutorial',
  'fitness-wellness',
  'medical-healthcare',
  'lifestyle-vlog',
  'food-cooking',
  'travel',
  'gaming',
  'entertainment-comedy',
  'news-commentary',
  'creative-design',
] as const;
export type Category = (typeof CATEGORIES)[number];

export type Model = 'sd' | 'hd';
export type OutputFormat = 'webp' | 'png';

export interface GenerateRequest {
  title: string;
  /** Required unless customAssetsId is given. */
  format?: Format;
  category?: Category;
  usePhoto?: boolean;
  useLogo?: boolean;
  /** Data URL, at most 2 MB decoded. */
  photoImage?: string;
  /** Data URL, at most 1 MB decoded. */
  logoImage?: string;
  customAssetsId?: string;
  model?: Model;
  outputFormat?: OutputFormat;
  /** Makes the request asynchronous: a job is returned and the result is POSTed here. */
  webhookUrl?: string;
  /** Legacy fields, still accepted. */
  imageStyle?: 'faceless' | 'with-image' | 'with-photo' | 'with-logo';
  personImage?: string;
  usePersonalPhoto?: boolean;
}

/** Every field of GenerateRequest, at run time. */
export const GENERATE_REQUEST_FIELDS = [
  'title',
  'format',
  'category',
  'usePhoto',
  'useLogo',
  'photoImage',
  'logoImage',
  'customAssetsId',
  'model',
  'outputFormat',
  'webhookUrl',
  'imageStyle',
  'personImage',
  'usePersonalPhoto',
] as const satisfies readonly (keyof GenerateRequest)[];

export interface GenerationResult {
  /** `data:image/webp;base64,…` or `data:image/png;base64,…`. */
  image: string;
  format: Format;
  outputFormat: OutputFormat;
  generationId: string;
  imageUrl: string | null;
  dimensions: { width: number; height: number };
}
export const GENERATION_RESULT_FIELDS = [
  'image',
  'format',
  'outputFormat',
  'generationId',
  'imageUrl',
  'dimensions',
] as const satisfies readonly (keyof GenerationResult)[];

export interface JobAccepted {
  jobId: string;
  status: 'processing';
  webhookUrl: string;
}

export interface Job {
  jobId: string;
  status: 'processing' | 'completed' | 'failed';
  webhookUrl: string | null;
  result?: GenerationResult;
  error?: string;
  webhook?: { status: 'pending' | 'delivered' | 'failed'; attempts: number; lastError: string | null };
}

export type WebhookEvent =
  | { event: 'generation.completed'; jobId: string; data: GenerationResult; timestamp: string }
  | { event: 'generation.failed'; jobId: string; error: string; timestamp: string };
export const WEBHOOK_EVENTS = ['generation.completed', 'generation.failed'] as const;

/** The machine codes of `{ error, code }` error bodies. */
export const ERROR_CODES = [
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'API_ACCESS_DISABLED',
  'RATE_LIMITED',
  'INVALID_REQUEST',
  'INVALID_JSON',
  'PAYLOAD_TOO_LARGE',
  'INVALID_IMAGE',
  'IMAGE_TOO_LARGE',
  'PHOTO_REQUIRED',
  'LOGO_REQUIRED',
  'UNSAFE_WEBHOOK_URL',
  'UPGRADE_REQUIRED',
  'FEATURE_NOT_IN_PLAN',
  'WEBHOOKS_NOT_IN_PLAN',
  'REFERENCE_SET_NOT_FOUND',
  'NOT_FOUND',
  'GENERATION_LIMIT_EXCEEDED',
  'GENERATION_FAILED',
  'UNAUTHORIZED',
  'ADMIN_DISABLED',
  'INTERNAL_ERROR',
  'INVALID_IDEMPOTENCY_KEY',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
  'INVALID_SIGNATURE',
  'URL_EXPIRED',
  'METHOD_NOT_ALLOWED',
  'NOT_READY',
  'SHUTTING_DOWN',
] as const;
/** A known code, or one added by a newer server. */
export type ErrorCode = (typeof ERROR_CODES)[number] | (string & {});

/** The API paths this client calls (`{name}` for parameters, as in the OpenAPI document). */
export const API_PATHS = ['/v1/generate', '/v1/jobs/{jobId}', '/v1/og/{file}'] as const;
