/**
 * The admin console at `{basePath}/console`: its single page (for every path that is not an asset,
 * so deep links and `/console/callback` work), its content-hashed assets, and `config.json` (what the
 * page needs to sign in; nothing secret). Mounted in front of the sign-in interactions by
 * {@link mountConsole}; with `console.enabled: false` nothing is.
 *
 * Headers: a Content-Security-Policy without inline script or style that lets the page talk only to
 * its own origin (the issuer), `no-store` for the page and `config.json`, a year's `immutable` caching
 * for hashed assets, `nosniff`, no framing, no referrer.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { DEFAULTS } from '../config/defaults.js';
import { sendJson } from '../internal/http.js';
import type { ResolvedConfig } from '../issuer-config.js';
import { type ConsoleAssets, loadConsoleAssets } from './assets.js';
import { consoleUris } from './bootstrap.js';

/**
 * Content-Security-Policy of the console: scripts and styles from its own files only, requests only to
 * the issuer's own origin.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const COMMON_HEADERS = Object.freeze({
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
});

/** A handler that answers a path (base path removed) or resolves to `false`. */
export type PathHandler = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;

/**
 * What `config.json` holds: where the issuer is and the console's client id.
 *
 * @example
 * ```ts
 * consolePageConfig(config).redirectUri; // 'http://localhost:3001/console/callback'
 * ```
 */
export function consolePageConfig(
  config: Pick<ResolvedConfig, 'baseUrl' | 'basePath' | 'managementAudience'>,
) {
  const { redirectUri, home } = consoleUris(config.baseUrl);
  return {
    endpoint: config.baseUrl,
    clientId: DEFAULTS.console.clientId,
    redirectUri,
    postLogoutRedirectUri: home,
    managementApi: config.managementAudience,
    basePath: `${config.basePath}/console`,
  };
}

/**
 * Put the console in front of `next` (the sign-in interactions): paths under `/console` are answered
 * here, everything else goes on. Returns `next` itself when the console is disabled.
 *
 * @example
 * ```ts
 * const interactions = mountConsole({ config, log }, createInteractionRoutes(deps));
 * ```
 */
export function mountConsole(
  deps: { readonly config: ResolvedConfig; readonly log: Logger },
  next: PathHandler,
  /** Reads the built console (tests give their own files). */
  load: (publicPath: string) => ConsoleAssets | undefined = loadConsoleAssets,
): PathHandler {
  const { config, log } = deps;
  if (!config.console.enabled) return next;
  const assets = load(`${config.basePath}/console/`);
  if (assets === undefined)
    log.warn(
      { event: 'console.not_built' },
      'the admin console was not built (pnpm build): /console answers 503',
    );
  const pageConfig = JSON.stringify(consolePageConfig(config));

  return async (req, res, path) => {
    if (path !== '/console' && !path.startsWith('/console/')) return next(req, res, path);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...COMMON_HEADERS, allow: 'GET, HEAD' }).end();
      return true;
    }
    if (path === '/console') {
      res.writeHead(308, { ...COMMON_HEADERS, location: `${config.basePath}/console/` }).end();
      return true;
    }
    const sub = path.slice('/console/'.length);
    if (sub === 'config.json') {
      sendJson(res, 200, JSON.parse(pageConfig), COMMON_HEADERS);
      return true;
    }
    if (assets === undefined) {
      sendJson(res, 503, { code: 'unavailable', message: 'The admin console was not built' });
      return true;
    }
    if (sub.startsWith('assets/')) {
      const file = assets.files.get(sub);
      if (file === undefined) {
        sendJson(res, 404, { code: 'not_found', message: 'Not found' });
        return true;
      }
      res.writeHead(200, {
        ...COMMON_HEADERS,
        'content-type': file.type,
        'cache-control': `public, max-age=${DEFAULTS.console.assetMaxAge}, immutable`,
      });
      res.end(req.method === 'HEAD' ? undefined : file.body);
      return true;
    }
    res.writeHead(200, { ...COMMON_HEADERS, 'content-type': assets.index.type, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : assets.index.body);
    return true;
  };
}
