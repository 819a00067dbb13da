/**
 * msw request handlers for a test issuer: OpenID discovery (both `.well-known` forms), the JWKS, and
 * JWKS outages (HTTP 500, no answer, malformed JSON) to put in front of them with `server.use(...)`.
 *
 * msw is an optional peer dependency: it is loaded when an issuer is created, and only the handler
 * getters need it. The in-memory `fetch` and the loopback server work without it.
 *
 * @module
 */
import type { HttpHandler } from 'msw';
import {
  discoveryResult,
  type Endpoints,
  jwksResult,
  type OutageKind,
  outageResult,
  type RouteContent,
  type RouteResult,
} from './internal/routes.js';

type Msw = typeof import('msw');

const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * An msw `onUnhandledRequest` strategy for API tests: requests to loopback hosts pass through (supertest's
 * requests to your app, a `listen()` issuer), and any other unhandled request prints msw's error and fails,
 * so a test can never reach the real network (msw answers it with a 500 "Unhandled Exception" response).
 * msw's own `'error'` strategy would also fail supertest's requests to your app.
 *
 * @example
 * ```ts
 * import { onUnhandledRequest } from '@gatehouse/testing';
 * beforeAll(() => server.listen({ onUnhandledRequest }));
 * ```
 */
export function onUnhandledRequest(request: Request, print: { error(): void }): void {
  const url = new URL(request.url);
  if (LOOPBACK_HOST.test(url.hostname)) return;
  print.error();
  throw new Error(
    `[@gatehouse/testing] unhandled request to the network: ${request.method} ${url.origin}${url.pathname}`,
  );
}

/**
 * Options of the outage handlers.
 *
 * @example
 * ```ts
 * server.use(issuer.outage.serverError({ once: true })); // the next JWKS request fails, later ones succeed
 * ```
 */
export interface OutageOptions {
  /** Answer only the next JWKS request this way, then fall through to the normal handlers. Default `false`. */
  once?: boolean;
}

/**
 * Options of `outage.timeout()`.
 *
 * @example
 * ```ts
 * server.use(issuer.outage.timeout());                 // never answers
 * server.use(issuer.outage.timeout({ delay: 6_000 })); // answers after core's default 5 s timeout
 * ```
 */
export interface TimeoutOutageOptions extends OutageOptions {
  /**
   * Milliseconds before the JWKS is finally served. Default: never answer (the request stays pending until
   * the client aborts it). Set it above your verifier's `jwks.timeout` to test a slow, not dead, issuer.
   */
  delay?: number;
}

/** Load msw, or `undefined` when it is not installed. */
export async function loadMsw(): Promise<Msw | undefined> {
  try {
    return await import('msw');
  } catch {
    return undefined;
  }
}

/** The error thrown when handlers are asked for and msw is missing. */
export function mswMissing(): Error {
  return new Error(
    'msw is not installed: add it (npm i -D msw) to use issuer.handlers and issuer.outage handlers, ' +
      'or use issuer.fetch / issuer.listen() instead',
  );
}

function respond(msw: Msw, result: RouteResult, method: string): Promise<Response> | Response {
  if (result.kind === 'hang')
    return msw.delay('infinite').then(() => new msw.HttpResponse(null, { status: 504 }));
  const body = method === 'HEAD' || result.body === '' ? null : result.body;
  return new msw.HttpResponse(body, { status: result.status, headers: result.headers });
}

/**
 * The handlers serving discovery and the JWKS of one issuer. They read the issuer's state on every
 * request, so a key rotation or a simulated outage is served without re-registering them.
 *
 * @example
 * ```ts
 * const server = setupServer(...createHandlers(msw, endpoints, content));
 * ```
 */
export function createHandlers(msw: Msw, endpoints: Endpoints, content: RouteContent): HttpHandler[] {
  const discovery = () => discoveryResult(content);
  const jwks = () => (content.outage === undefined ? jwksResult(content) : outageResult(content.outage));
  const { http } = msw;
  return [
    http.get(endpoints.openid, ({ request }) => respond(msw, discovery(), request.method)),
    http.get(endpoints.oauth, ({ request }) => respond(msw, discovery(), request.method)),
    http.get(endpoints.jwks, ({ request }) => respond(msw, jwks(), request.method)),
  ];
}

/**
 * One handler answering the JWKS URL with an outage, to prepend with `server.use(...)`.
 *
 * @example
 * ```ts
 * server.use(outageHandler(msw, endpoints, content, 'serverError', { once: true }));
 * ```
 */
export function outageHandler(
  msw: Msw,
  endpoints: Endpoints,
  content: RouteContent,
  kind: OutageKind,
  options: TimeoutOutageOptions = {},
): HttpHandler {
  if (options === null || typeof options !== 'object')
    throw new TypeError('outage options must be an object');
  if (options.once !== undefined && typeof options.once !== 'boolean') {
    throw new TypeError('"once" option must be a boolean');
  }
  const wait = options.delay;
  if (wait !== undefined && (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0)) {
    throw new TypeError('"delay" option must be a finite number >= 0 (milliseconds)');
  }
  return msw.http.get(
    endpoints.jwks,
    async ({ request }) => {
      if (kind === 'timeout' && wait !== undefined) {
        await msw.delay(wait);
        return respond(msw, jwksResult(content), request.method);
      }
      return respond(msw, outageResult(kind), request.method);
    },
    { once: options.once === true },
  );
}
