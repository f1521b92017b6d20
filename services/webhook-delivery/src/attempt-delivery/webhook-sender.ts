import { Inject, Injectable } from '@nestjs/common';
import { createGuardedDispatcher, UnsafeAddressError } from '@thumbforge/http-safety';
import { CONFIG, type Config } from '@thumbforge/platform';
import { request, type Agent } from 'undici';

export type SendResult = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/** Whatever a receiver answers is read and dropped, up to this much; a longer answer closes the connection. */
const RESPONSE_DRAIN_LIMIT = 64 * 1024;

/**
 * POSTs webhook bodies through the guarded dispatcher: every connection re-checks the target's
 * addresses (DNS rebinding), redirects are not followed, and the whole exchange has one deadline.
 */
@Injectable()
export class WebhookSender {
  private readonly dispatcher: Agent;

  constructor(@Inject(CONFIG) private readonly config: Config) {
    this.dispatcher = createGuardedDispatcher({
      allowPrivate: config.webhookAllowPrivate,
      connectTimeoutMs: config.webhookTimeoutMs,
    });
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const timeoutMs = this.config.webhookTimeoutMs;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await request(url, {
        method: 'POST',
        headers,
        body,
        signal,
        dispatcher: this.dispatcher,
      });
      await response.body.dump({ limit: RESPONSE_DRAIN_LIMIT, signal }).catch(() => undefined);
      const status = response.statusCode;
      if (status >= 200 && status < 300) return { ok: true, status };
      return { ok: false, status, error: `receiver answered HTTP ${status}` };
    } catch (error) {
      if (signal.aborted) return { ok: false, status: null, error: `no answer within ${timeoutMs} ms` };
      if (error instanceof UnsafeAddressError) return { ok: false, status: null, error: error.message };
      return { ok: false, status: null, error: `request failed: ${describe(error)}` };
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}
