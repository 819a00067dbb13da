/**
 * What a test issuer answers, independent of transport: the msw handlers, the in-memory `fetch` and the
 * loopback server all route a request here. Serves the OpenID discovery document, its RFC 8414 form and
 * the JWKS; a simulated outage replaces the JWKS answer.
 *
 * @module
 */
import { DEFAULTS } from '../defaults.js';
import type { TestJwks } from '../keys.js';

/**
 * Ways the JWKS endpoint can fail: HTTP 500, no answer at all, or a 200 with truncated JSON.
 *
 * @example
 * ```ts
 * const kind: OutageKind = 'timeout';
 * issuer.outage.simulate(kind);
 * ```
 */
export type OutageKind = 'serverError' | 'timeout' | 'malformed';

/** Every {@link OutageKind}. */
export const OUTAGE_KINDS: readonly OutageKind[] = Object.freeze([
  'serverError',
  'timeout',
  'malformed',
] as const);

/** Absolute URLs (without query) of the three documents. */
export interface Endpoints {
  readonly openid: string;
  readonly oauth: string;
  readonly jwks: string;
}

/** The live content behind the endpoints. */
export interface RouteContent {
  /** `issuer` member of the discovery document. */
  readonly issuer: string;
  /** `jwks_uri` member of the discovery document. */
  readonly jwksUri: string;
  readonly alg: string;
  jwks(): TestJwks;
  /** A simulated JWKS outage, or `undefined`. */
  readonly outage: OutageKind | undefined;
}

/** A response to send, or `hang` for a request that never gets one. */
export type RouteResult =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly headers: Record<string, string>;
      readonly body: string;
    }
  | { readonly kind: 'hang' };

/** The JWKS URL of an issuer: `{issuer}/jwks` (a trailing slash of the issuer is not doubled). */
export function defaultJwksUri(issuer: string): string {
  return `${issuer.replace(/\/$/, '')}${DEFAULTS.jwksPath}`;
}

/**
 * Where metadata about `issuer` is looked up: `{issuer}/.well-known/openid-configuration` (OpenID Connect
 * Discovery §4) and `{origin}/.well-known/oauth-authorization-server{path}` (RFC 8414 §3).
 */
export function endpointsFor(issuer: string, jwksUri: string): Endpoints {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  return Object.freeze({
    openid: `${url.origin}${path}/.well-known/openid-configuration`,
    oauth: `${url.origin}/.well-known/oauth-authorization-server${path}`,
    jwks: new URL(jwksUri).href,
  });
}

/** The authorization server metadata served by both discovery endpoints. */
export function discoveryDocument(content: RouteContent): Record<string, unknown> {
  const base = content.issuer.replace(/\/$/, '');
  return {
    issuer: content.issuer,
    jwks_uri: content.jwksUri,
    authorization_endpoint: `${base}/auth`,
    token_endpoint: `${base}/token`,
    response_types_supported: ['code'],
    grant_types_supported: [
      'authorization_code',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [content.alg],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'private_key_jwt'],
  };
}

const json = (status: number, body: unknown, type = 'application/json'): RouteResult => ({
  kind: 'response',
  status,
  headers: { 'content-type': type, 'cache-control': 'no-store' },
  body: JSON.stringify(body),
});

/** The answer of the JWKS endpoint during an outage. */
export function outageResult(kind: OutageKind): RouteResult {
  switch (kind) {
    case 'serverError':
      // No body: msw <= 2.15 never settles `response.body.cancel()` on an unread mocked body
      // (mswjs/interceptors#799), and clients that discard error bodies would hang instead of failing.
      return { kind: 'response', status: 500, headers: {}, body: '' };
    case 'malformed':
      return {
        kind: 'response',
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"keys": [{"kty":',
      };
    case 'timeout':
      return { kind: 'hang' };
  }
}

/** The JWKS answer (no outage). */
export function jwksResult(content: RouteContent): RouteResult {
  return json(200, content.jwks(), 'application/jwk-set+json');
}

/** The discovery answer. */
export function discoveryResult(content: RouteContent): RouteResult {
  return json(200, discoveryDocument(content));
}

/**
 * Route one request. Returns `undefined` when `url` is none of the endpoints (the caller decides: 404,
 * a rejected fetch, or passing the request on). The query string is ignored, as msw does.
 */
export function route(
  endpoints: Endpoints,
  content: RouteContent,
  method: string,
  url: URL,
): RouteResult | undefined {
  const target = `${url.origin}${url.pathname}`;
  const isJwks = target === endpoints.jwks;
  if (!isJwks && target !== endpoints.openid && target !== endpoints.oauth) return undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    return { kind: 'response', status: 405, headers: { allow: 'GET, HEAD' }, body: '' };
  }
  if (!isJwks) return discoveryResult(content);
  return content.outage === undefined ? jwksResult(content) : outageResult(content.outage);
}
