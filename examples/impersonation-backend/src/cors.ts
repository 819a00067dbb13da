/**
 * CORS for a browser application on another origin (the support console): only the listed origins,
 * only the `Authorization` and `Content-Type` request headers, and `WWW-Authenticate` readable by the
 * page so it can show why a request was refused. No cookies are involved (`credentials` stay off).
 *
 * @module
 */
import type { RequestHandler } from 'express';

/**
 * Allow cross-origin requests from `origins` (exact `scheme://host:port` strings). Preflight requests
 * are answered here with 204; other requests get `Access-Control-Allow-Origin` and continue.
 *
 * @example
 * ```ts
 * app.use(cors(['http://127.0.0.1:4200']));
 * ```
 */
export function cors(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    res.vary('Origin');
    if (origin === undefined || !allowed.has(origin)) {
      next();
      return;
    }
    res.set('access-control-allow-origin', origin);
    res.set('access-control-expose-headers', 'WWW-Authenticate, Retry-After');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.set('access-control-allow-methods', 'GET, POST, DELETE');
      res.set('access-control-allow-headers', 'Authorization, Content-Type');
      res.set('access-control-max-age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
