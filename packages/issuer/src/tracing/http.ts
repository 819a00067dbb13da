/**
 * The SERVER span of each request the issuer answers, with OpenTelemetry's HTTP conventions:
 * `http.request.method`, `url.path` (interaction ids masked as the request log masks them, the
 * issuer's own ids — a user's, an application's — as `{id}`, never the query),
 * `url.scheme`, `http.route` once known, `http.response.status_code`, and status ERROR with `error.type`
 * for a 5xx answer only (a 4xx is the client's error). It continues an incoming W3C `traceparent`
 * through the API's global propagator, and is the active span while the request is handled, so the
 * provider's phases, the database statements and core's `gatehouse.authenticate` are its children.
 *
 * The route (`/oidc/token`, `/api/users/{id}`, `/interaction/{uid}/login`) is set by whoever knows it:
 * the front door for its own paths and the sign-in pages, oidc-provider's router for `/oidc/*`, the
 * Management API's route table for `/api/*`. The span is named `{method} {route}`, or `{method}` alone.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api';
import { ID_PREFIXES } from '../internal/ids.js';
import { type TraceFields, traceFields } from './log-fields.js';
import { TRACING_NAMES } from './names.js';
import { activeTracer } from './tracer.js';

const A = TRACING_NAMES.attributes;

/** The methods OpenTelemetry's HTTP conventions know; any other is recorded as `_OTHER`. */
const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
]);

/** Reads `traceparent` / `tracestate` (and whatever the registered propagator asks) from Node headers. */
const HEADERS: TextMapGetter<IncomingMessage['headers']> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => headers[key],
};

/** The span of each request being served, and its method as the span name uses it. */
const spans = new WeakMap<IncomingMessage, { readonly span: Span; readonly method: string }>();

/** A path segment that is one of the issuer's ids (`usr_…`: a user's, `app_…`…). */
const ID_SEGMENT = new RegExp(`/(?:${Object.values(ID_PREFIXES).join('|')})[^/]*`, 'g');

/**
 * `path` as `url.path` records it: the issuer's ids (a user's, an application's…) replaced by `{id}`,
 * so no span holds one. The query is never part of it.
 *
 * @example
 * ```ts
 * spanPath('/api/users/usr_0123/roles'); // '/api/users/{id}/roles'
 * ```
 */
export function spanPath(path: string): string {
  return path.replace(ID_SEGMENT, '/{id}');
}

/** The sign-in pages' paths (as `interactions/routes.ts` matches them). */
const INTERACTION = /^\/interaction\/[A-Za-z0-9_-]{1,64}(?:\/(login|consent|abort|totp))?$/;

/**
 * The route of a path the front door answers itself, or of a sign-in page, under `basePath`;
 * `undefined` otherwise.
 *
 * @example
 * ```ts
 * frontRoute('/interaction/abc/login', ''); // '/interaction/{uid}/login'
 * frontRoute('/id/health', '/id'); // '/id/health'
 * ```
 */
export function frontRoute(path: string, basePath: string): string | undefined {
  if (basePath !== '' && path !== basePath && !path.startsWith(`${basePath}/`)) return undefined;
  const own = path.slice(basePath.length) || '/';
  if (own === '/') return basePath === '' ? '/' : basePath;
  if (own === '/health' || own === '/health/live' || own === '/health/ready') return path;
  const interaction = INTERACTION.exec(own);
  if (interaction === null) return undefined;
  return `${basePath}/interaction/{uid}${interaction[1] === undefined ? '' : `/${interaction[1]}`}`;
}

/**
 * Where a request is, as its span records it (worked out only when the request is traced).
 *
 * @example
 * ```ts
 * const place: RequestPlace = { path: '/oidc/token', scheme: 'https', route: '/oidc/token' };
 * ```
 */
export interface RequestPlace {
  /** The path as logged (interaction ids masked); the issuer's ids are masked here too. */
  readonly path: string;
  readonly scheme: string;
  /** The route, when the front door knows it; others set it later with {@link setRoute}. */
  readonly route?: string | undefined;
}

/**
 * Start the SERVER span of `req` (a child of its `traceparent`, if any) and end it when the response
 * is done; resolves to the context to handle the request in, or `undefined` when no SDK is registered.
 *
 * @example
 * ```ts
 * const traced = startRequestSpan(req, res, () => ({ path: '/oidc/token', scheme: 'https' }));
 * if (traced === undefined) handle();
 * else context.with(traced, handle);
 * ```
 */
export function startRequestSpan(
  req: IncomingMessage,
  res: ServerResponse,
  describe: () => RequestPlace,
): Context | undefined {
  const tracer = activeTracer();
  if (tracer === undefined) return undefined;
  const where = describe();
  const parent = propagation.extract(ROOT_CONTEXT, req.headers, HEADERS);
  const original = req.method ?? 'GET';
  const known = KNOWN_METHODS.has(original);
  const method = known ? original : 'HTTP';
  const span = tracer.startSpan(
    where.route === undefined ? method : `${method} ${where.route}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [A.httpMethod]: known ? original : '_OTHER',
        ...(known ? {} : { [A.httpMethodOriginal]: original.slice(0, 32) }),
        [A.urlPath]: spanPath(where.path),
        [A.urlScheme]: where.scheme,
        ...(where.route === undefined ? {} : { [A.httpRoute]: where.route }),
      },
    },
    parent,
  );
  spans.set(req, { span, method });
  res.once('close', () => {
    const status = res.statusCode;
    span.setAttribute(A.httpStatus, status);
    if (status >= 500) {
      span.setAttribute(A.errorType, String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  });
  return trace.setSpan(parent, span);
}

/**
 * Set the `http.route` of `req`'s span (a template: `/api/users/{id}`) and name the span after it. No
 * effect on a request that is not traced.
 *
 * @example
 * ```ts
 * setRoute(req, '/oidc/token'); // the span becomes 'POST /oidc/token'
 * ```
 */
export function setRoute(req: IncomingMessage, route: string): void {
  const traced = spans.get(req);
  if (traced === undefined) return;
  traced.span.setAttribute(A.httpRoute, route);
  traced.span.updateName(`${traced.method} ${route}`);
}

/**
 * Set an attribute on `req`'s span. No effect on a request that is not traced.
 *
 * @example
 * ```ts
 * setRequestAttribute(req, 'gatehouse.oauth.error', 'invalid_client');
 * ```
 */
export function setRequestAttribute(req: IncomingMessage, key: string, value: string): void {
  spans.get(req)?.span.setAttribute(key, value);
}

/**
 * The ids of `req`'s span as log fields (`{}` when it is not traced): the request's log line is
 * written when the response has finished, outside the request's context.
 *
 * @example
 * ```ts
 * log.info({ event: 'http', ...requestTraceFields(req) });
 * ```
 */
export function requestTraceFields(req: IncomingMessage): TraceFields | Record<string, never> {
  const traced = spans.get(req);
  return traced === undefined ? {} : traceFields(traced.span);
}

/**
 * Run `fn` in `ctx` (a request's traced context), or as it is when `ctx` is `undefined`.
 *
 * @example
 * ```ts
 * within(startRequestSpan(req, res, where), () => route(req, res));
 * ```
 */
export function within<T>(ctx: Context | undefined, fn: () => T): T {
  return ctx === undefined ? fn() : context.with(ctx, fn);
}
