/**
 * The issuer's front door: one Node request handler that sends `{basePath}/oidc/*` to oidc-provider,
 * answers `/health`, the probes `/health/live` and `/health/ready` (no authentication, no rate limit)
 * and `/`, and hands everything else to the sign-in interactions and the Management API; unknown paths
 * get a JSON 404. Every request is logged by path only (never its query), with interaction ids masked;
 * probes are logged at `debug`, so a probe every second does not fill the log.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Health } from './health.js';
import { sendJson } from './internal/http.js';
import type { ResolvedConfig } from './issuer-config.js';
import type { Store } from './storage/store.js';
import { frontRoute, requestTraceFields, startRequestSpan, within } from './tracing/http.js';

/**
 * A Node request handler.
 *
 * @example
 * ```ts
 * const handler: RequestHandler = (req, res) => res.end('ok');
 * ```
 */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * What the front door routes to.
 *
 * @example
 * ```ts
 * const handler = createFrontHandler(deps satisfies FrontDeps);
 * ```
 */
export interface FrontDeps {
  readonly config: ResolvedConfig;
  readonly store: Store;
  readonly log: Logger;
  /** The readiness of `/health/ready`. */
  readonly health: Pick<Health, 'ready'>;
  /** oidc-provider's current callback (it is rebuilt when the signing keys change). */
  readonly oidc: () => RequestHandler;
  /** Re-read the keys before serving the JWKS on a shared store; never rejects. */
  readonly refreshJwks: () => Promise<void>;
  /** The sign-in pages: resolves to whether it answered. */
  readonly interactions: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;
  /** The Management API: resolves to whether it answered. */
  readonly management: (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    url: URL,
  ) => Promise<boolean>;
}

/**
 * The path as logged: interaction ids (also cookie values) are replaced by `:uid`; capped at 256
 * characters.
 *
 * @example
 * ```ts
 * logPath('/interaction/abc123/login'); // '/interaction/:uid/login'
 * ```
 */
export function logPath(path: string): string {
  return path.replace(/\/(interaction|auth)\/[^/]+/, '/$1/:uid').slice(0, 256);
}

/**
 * Build the handler.
 *
 * @example
 * ```ts
 * const handler = createFrontHandler({ config, store, log, health, oidc: () => callback, refreshJwks, interactions, management });
 * createServer(handler).listen(3001);
 * ```
 */
export function createFrontHandler(deps: FrontDeps): RequestHandler {
  const { config, store, log, health, interactions, management } = deps;
  const oidcPrefix = `${config.basePath}/oidc`;
  const probes = new Set([`${config.basePath}/health/live`, `${config.basePath}/health/ready`]);

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const full = url.pathname;
    if (full === oidcPrefix || full.startsWith(`${oidcPrefix}/`)) {
      // The JWKS is read from the shared store when asked for, so no instance publishes an older set
      // than the keys other instances already sign with.
      if (store.multiNode && full === `${oidcPrefix}/jwks`) await deps.refreshJwks();
      // oidc-provider prefixes its paths with the mount path it finds here (as under Express), never
      // with anything taken from the request target, which may be absolute (`GET http://evil/oidc/…`).
      (req as IncomingMessage & { baseUrl?: string }).baseUrl = oidcPrefix;
      req.url = `${full.slice(oidcPrefix.length) || '/'}${url.search}`;
      deps.oidc()(req, res);
      return;
    }
    if (config.basePath !== '' && full !== config.basePath && !full.startsWith(`${config.basePath}/`)) {
      sendJson(res, 404, { code: 'not_found', message: 'Not found' });
      return;
    }
    const path = full.slice(config.basePath.length) || '/';
    if (path === '/health') {
      try {
        await store.ping();
        sendJson(res, 200, { status: 'ok' });
      } catch {
        sendJson(res, 503, { status: 'unavailable' });
      }
      return;
    }
    if (path === '/health/live') {
      sendJson(res, 200, { status: 'ok' });
      return;
    }
    if (path === '/health/ready') {
      const { ready, failed, checks } = await health.ready();
      if (ready) sendJson(res, 200, { status: 'ready', checks });
      else sendJson(res, 503, { status: 'unavailable', failed, checks });
      return;
    }
    if (await interactions(req, res, path)) return;
    if (await management(req, res, path, url)) return;
    if (path === '/') {
      sendJson(res, 200, {
        issuer: config.issuer,
        discovery: `${config.issuer}/.well-known/openid-configuration`,
        managementApi: config.managementAudience,
        openapi: `${config.managementAudience}/openapi.json`,
      });
      return;
    }
    sendJson(res, 404, { code: 'not_found', message: 'Not found' });
  }

  return (req, res) => {
    const started = performance.now();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', config.baseUrl);
    } catch {
      sendJson(res, 400, { code: 'invalid_request', message: 'Malformed request target' });
      return;
    }
    const path = url.pathname;
    // What spans and log lines show: masked below the base path only (a base path such as `/auth` is
    // not an id to mask).
    const shown = () =>
      path.startsWith(config.basePath)
        ? `${config.basePath}${logPath(path.slice(config.basePath.length))}`
        : logPath(path);
    const traced = startRequestSpan(req, res, () => ({
      path: shown(),
      scheme: url.protocol.slice(0, -1),
      route: frontRoute(path, config.basePath),
    }));
    // With request logs off (level above info), nothing is prepared for them.
    const level = probes.has(path) ? 'debug' : 'info';
    if (log.isLevelEnabled(level))
      res.once('finish', () => {
        // Path only: query strings can carry codes, tokens (id_token_hint) or state, and are never logged.
        log[level]({
          event: 'http',
          method: req.method,
          path: shown(),
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
          ...requestTraceFields(req),
        });
      });
    within(traced, () => route(req, res, url)).catch((err) => {
      log.error(
        { event: 'http.error', err: { type: (err as Error)?.name, message: (err as Error)?.message } },
        'request failed',
      );
      if (!res.headersSent) sendJson(res, 500, { code: 'internal_error', message: 'Internal error' });
      else res.destroy();
    });
  };
}
