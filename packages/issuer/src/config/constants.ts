/**
 * Fixed values of `@gatehouse/issuer` that are not settings: the values the enumerated settings accept
 * (signing algorithms, access-token formats, custom-claims failure modes, log levels), the standard
 * OpenID Connect scopes, and hard maxima. `DEFAULTS` (defaults.ts) picks its defaults among them.
 *
 * @module
 */
/** Signing algorithms the issuer can generate keys for. `RS256` is what every OpenID Connect relying party supports. */
export const SIGNING_ALGORITHMS = Object.freeze(['RS256', 'PS256', 'ES256', 'EdDSA'] as const);

/**
 * Formats of the access tokens issued for API resources: `jwt` (RFC 9068, validated locally by APIs) or
 * `opaque` (a random handle, checked by introspection and revocable at once).
 */
export const ACCESS_TOKEN_FORMATS = Object.freeze(['jwt', 'opaque'] as const);

/** One of {@link ACCESS_TOKEN_FORMATS}. */
export type AccessTokenFormat = (typeof ACCESS_TOKEN_FORMATS)[number];

/** One of {@link SIGNING_ALGORITHMS}. */
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/**
 * Where the Prometheus `/metrics` endpoint is served: `off`, on a server of its own (`own-port`), or on
 * the issuer's own port behind a bearer token (`issuer-port`).
 */
export const PROMETHEUS_MODES = Object.freeze(['off', 'own-port', 'issuer-port'] as const);

/** One of {@link PROMETHEUS_MODES}. */
export type PrometheusMode = (typeof PROMETHEUS_MODES)[number];

/** Standard OpenID Connect scopes the issuer knows. Every other scope belongs to an API resource. */
export const OIDC_SCOPES: ReadonlySet<string> = Object.freeze(
  new Set(['openid', 'offline_access', 'profile', 'email']),
);

/** What the custom-claims policy does when the function throws, hangs, crashes or returns something unusable. */
export const CUSTOM_CLAIMS_ON_ERROR = Object.freeze(['deny', 'issue-without-claims'] as const);

/** One of {@link CUSTOM_CLAIMS_ON_ERROR}. */
export type CustomClaimsOnError = (typeof CUSTOM_CLAIMS_ON_ERROR)[number];

/** Hard maximum of `subjectTokens.ttl`, in seconds: a subject token is meant to be redeemed at once. */
export const MAX_SUBJECT_TOKEN_TTL = 3_600;

/**
 * Most roles a `roles` claim may list (API resources with `rolesClaim`). A subject holding more roles
 * for the resource gets no token (`400 access_denied`) rather than a truncated list; see docs/scopes-and-roles.md.
 */
export const MAX_ROLES_CLAIM = 50;

/** Log levels accepted by `log.level`. */
export const LOG_LEVELS = Object.freeze([
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
] as const);

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];
