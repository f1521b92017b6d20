import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { instrumentsOf } from './instruments.js';
import { telemetryActive } from './sdk.js';
import { tracer } from './spans.js';

/** What Express adds to a request once a route matched. */
interface RoutedRequest extends IncomingMessage {
  baseUrl?: string;
  route?: { path?: unknown };
}

export type HttpMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE']);

/** Probes come every few seconds from the orchestrator; they would drown the requests that matter. */
const UNTRACED = /^\/health(\/|$)/;

function routeOf(req: RoutedRequest): string | undefined {
  const path = req.route?.path;
  return typeof path === 'string' ? `${req.baseUrl ?? ''}${path}` : undefined;
}

/**
 * One server span per request (continuing an incoming `traceparent`) and the
 * `http.server.request.duration` histogram, both with the route template Express matched
 * (`/v1/jobs/:id`, never the raw path) and the status. Installed before every other middleware;
 * undefined while telemetry is off, so nothing is added to the request path then.
 */
export function httpServerTelemetry(): HttpMiddleware | undefined {
  if (!telemetryActive()) return undefined;
  const duration = instrumentsOf().httpServerDuration;
  return (req, res, next) => {
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0]!;
    if (UNTRACED.test(path)) return next();
    const method = METHODS.has(req.method ?? '') ? req.method! : '_OTHER';
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer().startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': method, 'url.path': path, 'url.scheme': 'http' },
      },
      parent,
    );
    const started = performance.now();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = routeOf(req as RoutedRequest);
      const attributes = {
        'http.request.method': method,
        'http.response.status_code': res.statusCode,
        ...(route ? { 'http.route': route } : {}),
      };
      span.setAttributes(attributes);
      if (route) span.updateName(`${method} ${route}`);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      // The client went away before the answer was written.
      if (!res.writableFinished) span.setAttribute('error.type', 'aborted');
      span.end();
      duration.record((performance.now() - started) / 1000, attributes);
    };
    res.once('finish', end);
    res.once('close', end);
    const active = trace.setSpan(parent, span);
    // Body parsing and the rest of the chain continue from the request's stream events.
    context.bind(active, req);
    context.bind(active, res);
    context.with(active, next);
  };
}
