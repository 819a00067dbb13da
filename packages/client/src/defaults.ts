/**
 * The package's one frozen {@link DEFAULTS} object and the limits option validation is built on (the
 * DPoP algorithms a generated key pair may use, the largest `expiryLeeway`). `resolveOptions()`
 * (options.ts) is the only place these are merged with user options.
 *
 * @module
 */

/**
 * Default values of every option. Times are milliseconds except `expiryLeeway`, which is compared
 * with token lifetimes and is in seconds like them.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from '@gatehouse/client';
 * DEFAULTS.timeout; // 10000
 * ```
 */
export const DEFAULTS = Object.freeze({
  /** Keep the pending sign-in and the session in the client's memory only. */
  storage: 'memory' as const,
  /**
   * Scopes every sign-in asks for besides the configured ones: `openid` (an ID token, so the client
   * knows who signed in) and `offline_access` (a refresh token, which is how one token per resource is
   * obtained after sign-in).
   */
  baseScopes: Object.freeze(['openid', 'offline_access'] as const),
  /**
   * `prompt` of the authentication request. OpenID Connect ignores `offline_access` unless the request
   * carries `prompt=consent`; Gatehouse shows no consent page to first-party applications.
   */
  prompt: 'consent',
  /** Plain `http:` is refused: `true` allows it for loopback hosts, `'force'` for every host. */
  allowInsecureRequests: false,
  /** Abort a request to the issuer after this many ms (10 s). */
  timeout: 10_000,
  /**
   * Seconds before its stated expiry at which a cached access token counts as expired, so a token is
   * not handed out just before it stops working (clock skew, request time). At most 300.
   */
  expiryLeeway: 30,
  /** Path of the OpenID issuer under a Gatehouse base URL (the `endpoint` option). */
  issuerPath: '/oidc',
  /** First part of every storage key: `gatehouse:{clientId}:{record}`. */
  storageKeyPrefix: 'gatehouse',
  /** DPoP (RFC 9449): off unless `dpop` is set; then these apply. */
  dpop: Object.freeze({
    /** Algorithm of the generated key pair: ES256 (P-256), what every DPoP server accepts. */
    algorithm: 'ES256' as DpopAlgorithm,
  }),
});

/**
 * Algorithms a generated DPoP key pair may use.
 *
 * @example
 * ```ts
 * createClient({ ...options, dpop: { algorithm: DPOP_ALGORITHMS[1] } }); // 'EdDSA'
 * ```
 */
export const DPOP_ALGORITHMS = Object.freeze(['ES256', 'EdDSA', 'PS256', 'RS256'] as const);

/**
 * One of {@link DPOP_ALGORITHMS}.
 *
 * @example
 * ```ts
 * const algorithm: DpopAlgorithm = 'ES256';
 * ```
 */
export type DpopAlgorithm = (typeof DPOP_ALGORITHMS)[number];

/**
 * Largest `expiryLeeway`, in seconds.
 *
 * @example
 * ```ts
 * createClient({ ...options, expiryLeeway: MAX_EXPIRY_LEEWAY });
 * ```
 */
export const MAX_EXPIRY_LEEWAY = 300;
