/**
 * The support console's server: a static page (`public/`), `@gatehouse/client`'s browser bundle at
 * `/gatehouse-client.js`, and `/config.json` for the page. No server-side session and no token ever
 * passes through it: the page talks to the issuer, the backend and the orders API itself.
 *
 * Every response carries a Content-Security-Policy that lets the page's own scripts run and connect only
 * to the issuer, the backend and the orders API.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One API the page calls: its resource indicator (the token's `aud`) and where it is served. */
export interface ApiLocation {
  readonly resource: string;
  readonly url: string;
}

/** Options of {@link createConsoleHandler}. */
export interface ConsoleOptions {
  /** Where the page is served, e.g. `http://127.0.0.1:4200`: the redirect URI is `{origin}/callback`. */
  origin: string;
  /** Base URL of the Gatehouse issuer, e.g. `http://127.0.0.1:3001`. */
  endpoint: string;
  /** Client id of the console's `SPA` application (token exchange enabled). */
  clientId: string;
  /** The integrator's backend: `POST {url}/impersonations`. */
  backend: ApiLocation;
  /** The orders API: `GET {url}/orders` under impersonation. */
  orders: ApiLocation & { readonly scopes: readonly string[] };
  /**
   * The backend scope that allows impersonation (what its `requireScope` asks for). The page shows the
   * impersonation form only to users whose token for the backend carries it. Default `impersonate:users`.
   */
  impersonationScope?: string;
  /** Extra scopes to ask for at sign-in. Default: the impersonation scope and the orders scopes. */
  scopes?: readonly string[];
  /** Display names by user id, for the page (demo data). */
  directory?: Readonly<Record<string, string>>;
  /** Values to pre-fill the form with. */
  defaults?: { readonly userId?: string; readonly reason?: string; readonly ticketId?: string };
}

const PUBLIC = join(import.meta.dirname, '../public');
/** The scope the impersonation backend requires (examples/impersonation-backend). */
const DEFAULT_IMPERSONATION_SCOPE = 'impersonate:users';
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

/** The browser bundle of `@gatehouse/client` (an ES module), read from the package's build. */
export function clientBundlePath(): string {
  const manifest = createRequire(import.meta.url).resolve('@gatehouse/client/package.json');
  return join(dirname(manifest), 'dist/browser/index.js');
}

/** What `/config.json` holds: everything the page needs, nothing secret. */
export function pageConfig(options: ConsoleOptions) {
  const origin = new URL(options.origin).origin;
  const impersonationScope = options.impersonationScope ?? DEFAULT_IMPERSONATION_SCOPE;
  return {
    client: {
      endpoint: options.endpoint,
      allowInsecureRequests: new URL(options.endpoint).protocol === 'http:',
      clientId: options.clientId,
      redirectUri: `${origin}/callback`,
      postLogoutRedirectUri: `${origin}/`,
      resources: [options.orders.resource, options.backend.resource],
      scopes: [...(options.scopes ?? [impersonationScope, ...options.orders.scopes])],
    },
    backend: options.backend,
    impersonation: { scope: impersonationScope },
    orders: options.orders,
    directory: options.directory ?? {},
    defaults: options.defaults ?? {},
  };
}

/**
 * Build the request handler.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createConsoleHandler } from './app.ts';
 *
 * const handler = createConsoleHandler({
 *   origin: 'http://127.0.0.1:4200',
 *   endpoint: 'http://127.0.0.1:3001',
 *   clientId: 'support-console',
 *   backend: { resource: 'https://support-backend.example.com', url: 'http://127.0.0.1:4100' },
 *   orders: { resource: 'https://orders.example.com', url: 'http://127.0.0.1:4001', scopes: ['read:orders'] },
 * });
 * createServer(handler).listen(4200, '127.0.0.1');
 * ```
 */
export function createConsoleHandler(
  options: ConsoleOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const bundlePath = clientBundlePath();
  let bundle: string;
  try {
    bundle = readFileSync(bundlePath, 'utf8');
  } catch {
    throw new Error(`@gatehouse/client's browser bundle is missing (${bundlePath}): run "pnpm build" first`);
  }
  const files = new Map<string, { type: string; body: string }>();
  const page = { type: TYPES['.html']!, body: readFileSync(join(PUBLIC, 'index.html'), 'utf8') };
  for (const path of ['/', '/callback']) files.set(path, page);
  for (const name of ['console.js', 'impersonate.js', 'messages.js', 'console.css']) {
    files.set(`/${name}`, {
      type: TYPES[name.slice(name.lastIndexOf('.'))]!,
      body: readFileSync(join(PUBLIC, name), 'utf8'),
    });
  }
  files.set('/gatehouse-client.js', { type: TYPES['.js']!, body: bundle });
  files.set('/config.json', { type: TYPES['.json']!, body: JSON.stringify(pageConfig(options), null, 2) });

  const connect = [options.endpoint, options.backend.url, options.orders.url].map(
    (url) => new URL(url).origin,
  );
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self' ${[...new Set(connect)].join(' ')}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://console.invalid').pathname;
    const headers = {
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/favicon.ico') {
      res.writeHead(204, headers).end(); // no icon, and no 404 in the browser's console
      return;
    }
    const file = files.get(path);
    if (file === undefined) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': file.type });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  };
}
