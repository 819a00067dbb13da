/**
 * `http.server.request.duration` for every request the issuer answers, measured around its request
 * handler: from the request's arrival at the handler until its answer is finished (or the connection
 * closed). `http.route` is set only for the fixed paths of the protocol and the probes (the Management
 * API's and the sign-in pages' paths carry ids, and the request's own path is never an attribute).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from '../front.js';
import { type IssuerMetrics, OTHER } from './metrics.js';

/** Methods reported by name (OpenTelemetry's list); any other is `_OTHER`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** Paths (below `basePath`) reported as `http.route`: oidc-provider's routes under `/oidc`, the probes, `/metrics`. */
const ROUTES = [
  '/oidc/auth',
  '/oidc/token',
  '/oidc/token/introspection',
  '/oidc/token/revocation',
  '/oidc/jwks',
  '/oidc/me',
  '/oidc/session/end',
  '/oidc/request',
  '/oidc/.well-known/openid-configuration',
  '/.well-known/oauth-authorization-server',
  '/health',
  '/health/live',
  '/health/ready',
  '/metrics',
  '/api/openapi.json',
];

/**
 * `handler`, measuring each request into `metrics`.
 *
 * @example
 * ```ts
 * const handler = measureRequests(createFrontHandler(deps), metrics, config.basePath);
 * ```
 */
export function measureRequests(
  handler: RequestHandler,
  metrics: IssuerMetrics,
  basePath: string,
): RequestHandler {
  const routes = new Map(ROUTES.map((route) => [`${basePath}${route}`, route]));
  return (req: IncomingMessage, res: ServerResponse) => {
    const start = performance.now();
    // Read now: the handlers under it rewrite `req.url` (the provider is mounted at /oidc).
    const method = METHODS.has(req.method ?? '') ? req.method! : OTHER;
    const route = routes.get((req.url ?? '/').split('?')[0]!);
    res.once('close', () =>
      metrics.httpRequest(method, res.statusCode, route, (performance.now() - start) / 1_000),
    );
    handler(req, res);
  };
}
