/**
 * The `introspection` option of `createVerifier()` (RFC 7662): where to introspect, how the resource
 * server authenticates there, which tokens are introspected and how long an answer is reused.
 * Validated once, at construction, like every other option.
 *
 * @module
 */
import { DEFAULTS, type IntrospectionMode } from '../defaults.js';
import { fail } from '../internal/fail.js';
import { rejectUnknownKeys } from '../internal/known-keys.js';

/**
 * The authorization server as a client authentication function sees it: its issuer (the audience of a
 * `private_key_jwt` assertion) and the endpoint called. A type literal rather than an interface, so it
 * fits oauth4webapi's `AuthorizationServer` (which has an index signature).
 *
 * @example
 * ```ts
 * const server: IntrospectionServer = {
 *   issuer: 'https://id.example.com/oidc',
 *   introspection_endpoint: 'https://id.example.com/oidc/token/introspection',
 * };
 * ```
 */
export type IntrospectionServer = {
  readonly issuer: string;
  readonly introspection_endpoint: string;
};

/**
 * Adds the resource server's client authentication to an introspection request: headers and/or form
 * parameters (RFC 6749 §2.3, RFC 7523 `private_key_jwt`, ...). Same shape as oauth4webapi's
 * `ClientAuth`, so `oauth.PrivateKeyJwt(key)` or `oauth.ClientSecretPost(secret)` can be passed as is.
 *
 * @example
 * ```ts
 * import * as oauth from 'oauth4webapi';
 * const clientAuth: IntrospectionClientAuth = oauth.PrivateKeyJwt(privateKey);
 * ```
 */
export type IntrospectionClientAuth = (
  server: IntrospectionServer,
  client: { readonly client_id: string },
  body: URLSearchParams,
  headers: Headers,
) => void | Promise<void>;

/**
 * Token introspection (RFC 7662). Give `clientSecret` (sent as `client_secret_basic`) or `clientAuth`.
 *
 * @example
 * ```ts
 * const introspection: IntrospectionOptions = {
 *   clientId: 'orders-api',
 *   clientSecret: process.env.ORDERS_API_SECRET!,
 *   mode: 'always',
 *   cacheMaxAge: 0,
 * };
 * ```
 */
export interface IntrospectionOptions {
  /** The introspection endpoint. Default: the issuer metadata's `introspection_endpoint` (on the issuer's origin). */
  endpoint?: string | URL;
  /** The resource server's client id at the authorization server. */
  clientId: string;
  /** Its client secret, sent with HTTP Basic (`client_secret_basic`). */
  clientSecret?: string;
  /** Any other client authentication (e.g. `private_key_jwt`); instead of `clientSecret`. */
  clientAuth?: IntrospectionClientAuth;
  /**
   * `opaque` (default): JWTs are verified locally, other tokens introspected; `always`: every token is
   * introspected; `delegated`: as `opaque`, and JWTs with `act` (impersonation tokens) are introspected
   * too once their local checks pass, so ending an impersonation at the issuer applies at once.
   */
  mode?: IntrospectionMode;
  /**
   * Longest reuse of an active answer, in ms, never past the token's `exp`. Default 30000 in `opaque`
   * mode, `0` (every request asks) in `always` mode, so a revocation applies at once. In `delegated`
   * mode a delegated JWT is asked about on every request (only `0` is accepted).
   */
  cacheMaxAge?: number;
  /** Abort an introspection request after this many ms. Default 5000. */
  timeout?: number;
}

/** Every member of {@link IntrospectionOptions}: the compiler keeps this list in step with the interface. */
const INTROSPECTION_OPTIONS: readonly string[] = Object.freeze(
  Object.keys({
    endpoint: 1,
    clientId: 1,
    clientSecret: 1,
    clientAuth: 1,
    mode: 1,
    cacheMaxAge: 1,
    timeout: 1,
  } satisfies Record<keyof IntrospectionOptions, 1>),
);

/**
 * {@link IntrospectionOptions} after defaults and validation.
 *
 * @example
 * ```ts
 * createVerifier({ issuer, audience, introspection: { clientId: 'api', clientSecret } }).options.introspection?.mode; // 'opaque'
 * ```
 */
export interface ResolvedIntrospectionOptions {
  readonly endpoint: URL | undefined;
  readonly clientId: string;
  /** The credentials, applied to each request (Basic header built once from `clientSecret`). */
  readonly clientAuth: IntrospectionClientAuth;
  readonly mode: IntrospectionMode;
  /** Seconds. */
  readonly cacheMaxAge: number;
  /** Milliseconds. */
  readonly timeout: number;
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before they are joined and base64-encoded. */
const formEncode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+');

/**
 * `client_secret_basic`. The header is built once; the secret stays in this closure only, so it is in
 * no option object, error or log line.
 */
function basic(clientId: string, secret: string): IntrospectionClientAuth {
  const value = `Basic ${btoa(`${formEncode(clientId)}:${formEncode(secret)}`)}`;
  return (_server, _client, _body, headers) => {
    headers.set('authorization', value);
  };
}

function milliseconds(value: unknown, fallback: number, option: string, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
    return fail(option, `must be a finite number >= ${min} (milliseconds)`);
  return value;
}

/**
 * Validate the `introspection` option. Throws a `TypeError` naming the option; `undefined` when
 * introspection is not configured.
 *
 * @example
 * ```ts
 * resolveIntrospectionOptions({ clientId: 'orders-api', clientSecret: 's3cret', mdoe: 'always' }, toUrl);
 * // TypeError: unknown option "introspection.mdoe" (did you mean "introspection.mode"?)
 * ```
 */
export function resolveIntrospectionOptions(
  value: unknown,
  parseUrl: (value: unknown, option: string) => URL,
): ResolvedIntrospectionOptions | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail('introspection', 'must be an object');
  rejectUnknownKeys(value, INTROSPECTION_OPTIONS, 'introspection.');
  const o = value as IntrospectionOptions;
  const d = DEFAULTS.introspection;
  if (typeof o.clientId !== 'string' || o.clientId.length === 0)
    fail('introspection.clientId', 'must be a non-empty string');
  if ((o.clientSecret === undefined) === (o.clientAuth === undefined))
    fail('introspection', 'needs exactly one of "clientSecret" and "clientAuth"');
  if (o.clientSecret !== undefined && (typeof o.clientSecret !== 'string' || o.clientSecret.length === 0))
    fail('introspection.clientSecret', 'must be a non-empty string');
  if (o.clientAuth !== undefined && typeof o.clientAuth !== 'function')
    fail('introspection.clientAuth', 'must be a function (server, client, body, headers)');
  const mode = o.mode ?? d.mode;
  if (mode !== 'opaque' && mode !== 'always' && mode !== 'delegated')
    fail('introspection.mode', 'must be "opaque", "always" or "delegated"');
  if (mode === 'delegated' && o.cacheMaxAge !== undefined && o.cacheMaxAge !== 0)
    fail(
      'introspection.cacheMaxAge',
      'must be 0 in "delegated" mode (a delegated token is asked about on every request)',
    );
  return Object.freeze({
    endpoint: o.endpoint === undefined ? undefined : parseUrl(o.endpoint, 'introspection.endpoint'),
    clientId: o.clientId,
    clientAuth: o.clientAuth ?? basic(o.clientId, o.clientSecret as string),
    mode,
    cacheMaxAge:
      milliseconds(o.cacheMaxAge, mode === 'opaque' ? d.cacheMaxAge : 0, 'introspection.cacheMaxAge', 0) /
      1000,
    timeout: milliseconds(o.timeout, d.timeout, 'introspection.timeout', 1),
  });
}
