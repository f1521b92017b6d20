import { telemetryActive, traceLogFields } from '@thumbforge/telemetry';
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

/** Structured JSON logs; API keys and bodies never reach them (redacted at the source). */
export function createLogger(
  config: Pick<Config, 'logLevel'>,
  bindings: Record<string, string> = {},
): Logger {
  return pino({
    level: config.logLevel,
    base: { service: 'thumbforge', ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
    // trace_id / span_id of the active span; without telemetry no mixin runs at all.
    ...(telemetryActive() ? { mixin: traceLogFields } : {}),
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'apiKey', '*.apiKey'],
      censor: '[redacted]',
    },
  });
}

export const LOGGER = Symbol.for('thumbforge.Logger');
export type { Logger };
