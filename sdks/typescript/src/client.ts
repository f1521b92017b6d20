import { randomUUID } from 'node:crypto';
import { ThumbforgeError } from './errors.js';
import type { GenerateRequest, GenerationResult, Job, JobAccepted } from './types.js';

export interface ThumbforgeOptions {
  apiKey: string;
  /** Base address of the service, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** Retries after a 429, a 5xx or a network failure (default 3). */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown (default 60 s). */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
  /** How to wait between attempts (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
}

export interface GenerateOptions {
  /** Sent as `Idempotency-Key` on every attempt; a random UUID when absent. */
  idempotencyKey?: string;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `Retry-After` as seconds or an HTTP date, in milliseconds. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export class Thumbforge {
  private readonly baseUrl: string;
  private readonly maxRetries: number;
  private readonly maxRetryDelayMs: number;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ThumbforgeOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? 3;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
    this.fetch = options.fetch ?? fetch;
    this.sleep = options.sleep ?? wait;
  }

  /**
   * `POST /v1/generate`: the result (sync) or the accepted job (with `webhookUrl`). Retries reuse one
   * idempotency key, so a retried request is never charged twice.
   */
  generate(
    request: GenerateRequest & { webhookUrl: string },
    options?: GenerateOptions,
  ): Promise<JobAccepted>;
  generate(request: GenerateRequest, options?: GenerateOptions): Promise<GenerationResult>;
  async generate(
    request: GenerateRequest,
    options: GenerateOptions = {},
  ): Promise<GenerationResult | JobAccepted> {
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    return this.request('POST', '/v1/generate', request, { 'Idempotency-Key': idempotencyKey });
  }

  getJob(jobId: string): Promise<Job> {
    return this.request('GET', `/v1/jobs/${encodeURIComponent(jobId)}`);
  }

  /** Polls a job until it is completed or failed. */
  async waitForJob(jobId: string, options: { intervalMs?: number; timeoutMs?: number } = {}): Promise<Job> {
    const interval = options.intervalMs ?? 1000;
    const deadline = Date.now() + (options.timeoutMs ?? 300_000);
    for (;;) {
      const job = await this.getJob(jobId);
      if (job.status !== 'processing') return job;
      if (Date.now() + interval > deadline) {
        throw new ThumbforgeError(0, 'NETWORK_ERROR', `job ${jobId} still processing after the timeout`);
      }
      await this.sleep(interval);
    }
  }

  private async request<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetch(`${this.baseUrl}${path}`, {
          method,
          headers: {
            'x-api-key': this.options.apiKey,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        if (attempt < this.maxRetries) {
          await this.sleep(this.backoff(attempt));
          continue;
        }
        throw new ThumbforgeError(0, 'NETWORK_ERROR', `request failed: ${(error as Error).message}`);
      }
      if (res.ok) return (await res.json()) as T;
      const retryAfter = retryAfterMs(res.headers.get('retry-after'));
      const retryable = res.status === 429 || res.status >= 500;
      const delay = retryAfter ?? this.backoff(attempt);
      if (retryable && attempt < this.maxRetries && delay <= this.maxRetryDelayMs) {
        await res.body?.cancel();
        await this.sleep(delay);
        continue;
      }
      const text = await res.text();
      let parsed: { error?: string; code?: string } = {};
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: the text is the message
      }
      throw new ThumbforgeError(
        res.status,
        parsed.code ?? 'INTERNAL_ERROR',
        parsed.error ?? (text || `HTTP ${res.status}`),
        res.headers.get('x-request-id'),
        retryAfter,
      );
    }
  }

  /** 0.5 s, 1 s, 2 s, … with up to 25 % jitter. */
  private backoff(attempt: number): number {
    const base = 500 * 2 ** attempt;
    return Math.round(base * (1 + Math.random() * 0.25));
  }
}
