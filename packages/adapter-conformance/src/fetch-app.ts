/**
 * The suite's routes as one plain WHATWG fetch handler on `@gatehouse/core` alone — what a `Bun.serve`,
 * `Deno.serve`, Worker or Next.js route handler writes: `verifier.authenticate(request)`, then
 * `verifier.authorize()` for the route's scopes and roles, and `errorResponse()` for every `AuthError`. No Node
 * built-in: the same module runs on Node (through `@hono/node-server`'s request listener), Bun and Deno.
 *
 * @module
 */
import {
  type AuthenticateOptions,
  errorResponse,
  isAuthError,
  MissingTokenError,
  type ResourceMetadataOptions,
  resolveAdapterOptions,
  type Verifier,
  type VerifyOptions,
} from '@gatehouse/core';
import { describeAuth, ROLES, SCOPES, STEP_UP } from './describe.js';

/** What the handler is built from: the verifier, the public origin and the RFC 9728 document to serve. */
export interface FetchSetup {
  readonly verifier: Verifier;
  readonly origin?: string | undefined;
  readonly resourceMetadata?: ResourceMetadataOptions | undefined;
}

/** Per request: the TLS client certificate of the connection, where the runtime exposes it. */
export interface FetchContext {
  readonly clientCertificate?: Uint8Array | undefined;
}

/** A fetch handler. */
export type FetchHandler = (request: Request, context?: FetchContext) => Promise<Response>;

interface Route {
  readonly method: 'GET' | 'POST';
  readonly authenticate: AuthenticateOptions;
  readonly scopes?: VerifyOptions;
  /** Checked after `scopes`, as a second guard would be. */
  readonly roles?: VerifyOptions;
}

const ROUTES: Readonly<Record<string, Route>> = {
  '/me': { method: 'GET', authenticate: {} },
  '/optional': { method: 'GET', authenticate: { optional: true } },
  '/optional/scoped': { method: 'GET', authenticate: { optional: true }, scopes: { scopes: SCOPES.one } },
  '/scoped/one': { method: 'GET', authenticate: {}, scopes: { scopes: SCOPES.one } },
  '/scoped/all': { method: 'GET', authenticate: {}, scopes: { scopes: SCOPES.pair } },
  '/scoped/any': { method: 'GET', authenticate: {}, scopes: { scopes: SCOPES.pair, scopeMode: 'any' } },
  '/no-delegation': { method: 'GET', authenticate: { allowDelegation: false } },
  '/no-delegation/scoped': {
    method: 'GET',
    authenticate: {},
    scopes: { scopes: SCOPES.one, allowDelegation: false },
  },
  '/roles/one': { method: 'GET', authenticate: {}, roles: { roles: ROLES.one } },
  '/roles/all': { method: 'GET', authenticate: {}, roles: { roles: ROLES.pair } },
  '/roles/any': { method: 'GET', authenticate: {}, roles: { roles: ROLES.pair, roleMode: 'any' } },
  '/roles/scoped': {
    method: 'GET',
    authenticate: {},
    scopes: { scopes: SCOPES.one },
    roles: { roles: ROLES.one },
  },
  '/step-up': { method: 'GET', authenticate: {}, scopes: { scopes: SCOPES.one, ...STEP_UP } },
  '/form': { method: 'POST', authenticate: {} },
};

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
  });

/**
 * The suite's app as a fetch handler.
 *
 * @example
 * ```ts
 * const handle = createFetchHandler({ verifier });
 * Bun.serve({ port: 0, fetch: (request) => handle(request) });
 * ```
 */
export function createFetchHandler(setup: FetchSetup): FetchHandler {
  const { verifier, origin } = setup;
  const { metadata } = resolveAdapterOptions({ verifier, resourceMetadata: setup.resourceMetadata });
  return async (request, context = {}) => {
    // A request without Host can have a relative URL (Bun): route on its path all the same.
    const { pathname } = new URL(request.url, 'http://host.invalid');
    if (metadata !== undefined && pathname === metadata.path && request.method === 'GET')
      return json(metadata.document, 200, { ...metadata.headers });
    const route = ROUTES[pathname];
    if (route === undefined || route.method !== request.method) return json({ error: 'not_found' }, 404);
    try {
      const auth = await verifier.authenticate(request, {
        ...route.authenticate,
        origin,
        clientCertificate: context.clientCertificate,
      });
      for (const requirement of [route.scopes, route.roles]) {
        if (requirement === undefined) continue;
        if (auth === undefined) throw new MissingTokenError(verifier.context);
        verifier.authorize(auth, requirement);
      }
      return json(describeAuth(auth));
    } catch (error) {
      if (isAuthError(error)) return errorResponse(error);
      throw error;
    }
  };
}
