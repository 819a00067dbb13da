/**
 * Every way a request can fail authentication or authorization, as classes carrying the HTTP status,
 * the OAuth error code (RFC 6750 §3.1), a stable machine `reason`, a fixed safe description and the
 * response headers (`WWW-Authenticate`, `Retry-After`).
 *
 * Descriptions are constants chosen by `reason`: no claim value or token fragment is ever placed in
 * a message or header, so errors are safe to log and to send.
 *
 * Challenges follow the verifier's DPoP mode (RFC 9449 §7.1–7.2): `Bearer` only when DPoP is disabled,
 * `DPoP` only when it is required, both when it is allowed. The error's attributes go in the challenge
 * of the scheme the request used (a proof error always in `DPoP`), the other challenge stays bare.
 *
 * @module
 */
import { challenges, type ErrorContext } from './challenge.js';

export type { ErrorContext } from './challenge.js';

/** Stable machine-readable causes. Safe to switch on; never renamed within a major version. */
export type AuthErrorReason =
  | 'missing_token'
  | 'multiple_tokens'
  | 'bad_syntax'
  | 'token_too_large'
  | 'malformed'
  | 'algorithm'
  | 'key_not_found'
  | 'signature'
  | 'typ'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'not_yet_valid'
  | 'too_old'
  | 'claim'
  | 'actor'
  | 'delegation_not_allowed'
  | 'insufficient_scope'
  | 'insufficient_role'
  | 'acr_not_accepted'
  | 'auth_time_too_old'
  | 'jwks_unavailable'
  | 'issuer_unavailable'
  | 'bound_token'
  | 'not_bound'
  | 'binding_required'
  | 'dpop_binding'
  | 'certificate'
  | 'dpop_missing'
  | 'dpop_multiple'
  | 'dpop_too_large'
  | 'dpop_malformed'
  | 'dpop_typ'
  | 'dpop_algorithm'
  | 'dpop_key'
  | 'dpop_signature'
  | 'dpop_htm'
  | 'dpop_htu'
  | 'dpop_iat'
  | 'dpop_jti'
  | 'dpop_ath'
  | 'dpop_replay'
  | 'dpop_nonce'
  | 'replay_store_unavailable'
  | 'inactive'
  | 'introspection_unavailable';

/** OAuth error codes used in responses. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'access_denied'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'insufficient_user_authentication';

const DESCRIPTIONS: Readonly<Record<AuthErrorReason, string>> = Object.freeze({
  missing_token: 'No access token was provided',
  multiple_tokens: 'More than one method was used to send the access token',
  bad_syntax: 'The Authorization header is not a valid Bearer credential',
  token_too_large: 'The access token is too large',
  malformed: 'The access token is not a well-formed signed JWT',
  algorithm: 'The access token is signed with an algorithm that is not accepted',
  key_not_found: 'No key is known for the access token',
  signature: 'The access token signature is invalid',
  typ: 'The access token type is not accepted',
  issuer: 'The access token issuer is not accepted',
  audience: 'The access token is not intended for this resource',
  expired: 'The access token has expired',
  not_yet_valid: 'The access token is not yet valid',
  too_old: 'The access token was issued too long ago',
  claim: 'The access token is missing a required claim or a claim has an invalid value',
  actor: 'The access token actor (act) claim is invalid',
  delegation_not_allowed: 'Delegated (impersonation) access tokens are not accepted here',
  insufficient_scope: 'The access token does not grant the required scope',
  insufficient_role: 'The access token does not carry the required role',
  acr_not_accepted: 'The user authentication behind the access token is not strong enough for this resource',
  auth_time_too_old: 'The user authentication behind the access token is not recent enough for this resource',
  jwks_unavailable: 'The signing keys cannot be retrieved right now; try again later',
  issuer_unavailable:
    'Whether the access token issuer is trusted cannot be decided right now; try again later',
  bound_token: 'The access token is bound to a DPoP key and must be sent with the DPoP scheme and a proof',
  not_bound: 'The access token is not bound to a DPoP key',
  binding_required: 'This resource accepts only sender-constrained access tokens',
  dpop_binding: 'The DPoP proof key does not match the key the access token is bound to',
  certificate: 'The client certificate does not match the one the access token is bound to',
  dpop_missing: 'The request has no DPoP proof',
  dpop_multiple: 'The request has more than one DPoP proof',
  dpop_too_large: 'The DPoP proof is too large',
  dpop_malformed: 'The DPoP proof is not a well-formed signed JWT',
  dpop_typ: 'The DPoP proof type (typ) must be dpop+jwt',
  dpop_algorithm: 'The DPoP proof is signed with an algorithm that is not accepted',
  dpop_key: 'The DPoP proof key (jwk) is missing, private, weak or does not match its algorithm',
  dpop_signature: 'The DPoP proof signature is invalid',
  dpop_htm: 'The DPoP proof method (htm) does not match the request',
  dpop_htu: 'The DPoP proof URI (htu) does not match the request',
  dpop_iat: 'The DPoP proof issue time (iat) is missing or outside the accepted window',
  dpop_jti: 'The DPoP proof identifier (jti) is missing or invalid',
  dpop_ath: 'The DPoP proof access token hash (ath) is missing or does not match the access token',
  dpop_replay: 'The DPoP proof has already been used',
  dpop_nonce: 'The resource server requires a fresh nonce in the DPoP proof',
  replay_store_unavailable: 'DPoP proofs cannot be checked for replay right now; try again later',
  inactive: 'The access token is not active (revoked, expired or unknown to its issuer)',
  introspection_unavailable: 'The access token cannot be introspected right now; try again later',
});

/**
 * Base class of every error the verifier and the adapters produce.
 *
 * @example
 * ```ts
 * import { AuthError } from '@gatehouse/core';
 *
 * try {
 *   await verifier.verify(token);
 * } catch (err) {
 *   if (err instanceof AuthError) {
 *     res.writeHead(err.status, err.headers).end(JSON.stringify(err.toJSON()));
 *   } else throw err;
 * }
 * ```
 */
export abstract class AuthError extends Error {
  /** HTTP status to answer with. */
  abstract readonly status: number;
  /** OAuth error code, or `undefined` when the response carries none (missing token, outage). */
  abstract readonly code: OAuthErrorCode | undefined;
  /** Stable machine-readable cause. */
  readonly reason: AuthErrorReason;
  /** Fixed human-readable text for `error_description`. */
  readonly description: string;
  /** Same as {@link AuthError.status}, for frameworks that read `statusCode`. */
  get statusCode(): number {
    return this.status;
  }
  /** The message is safe to show to the client (Koa reads this). */
  readonly expose = true;
  /** Where the challenge is issued (realm, metadata URL, DPoP mode and the request's scheme). */
  readonly context: ErrorContext;

  constructor(reason: AuthErrorReason, context: ErrorContext = {}) {
    const description = DESCRIPTIONS[reason];
    super(description);
    this.name = new.target.name;
    this.reason = reason;
    this.description = description;
    this.context = context;
  }

  /** Value of the `WWW-Authenticate` header, or `undefined` when none is sent. */
  get wwwAuthenticate(): string | undefined {
    return challenges(this.context, {
      error: this.code,
      errorDescription: this.code === undefined ? undefined : this.description,
    });
  }

  /** Response headers for this error (`WWW-Authenticate`, and `Retry-After` for 503). */
  get headers(): Readonly<Record<string, string>> {
    const value = this.wwwAuthenticate;
    return value === undefined ? {} : { 'www-authenticate': value };
  }

  /** The JSON response body: `{ error, error_description }`. */
  toJSON(): { error: string; error_description: string } {
    return { error: this.code ?? 'unauthorized', error_description: this.description };
  }
}

/** 400 `invalid_request`: more than one token source, or a credential that breaks the b64token syntax. */
export class InvalidRequestError extends AuthError {
  readonly status = 400;
  readonly code = 'invalid_request' as const;
  declare readonly reason: 'multiple_tokens' | 'bad_syntax';
  constructor(reason: 'multiple_tokens' | 'bad_syntax', context?: ErrorContext) {
    super(reason, context);
  }
}

/** Reasons an {@link InvalidTokenError} can carry. */
export type InvalidTokenReason = Extract<
  AuthErrorReason,
  | 'token_too_large'
  | 'malformed'
  | 'algorithm'
  | 'key_not_found'
  | 'signature'
  | 'typ'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'not_yet_valid'
  | 'too_old'
  | 'claim'
  | 'actor'
  | 'bound_token'
  | 'not_bound'
  | 'binding_required'
  | 'dpop_binding'
  | 'certificate'
  | 'inactive'
>;

/** 401 `invalid_token`: the token is malformed, forged, expired or not meant for this resource. */
export class InvalidTokenError extends AuthError {
  readonly status = 401;
  readonly code = 'invalid_token' as const;
  declare readonly reason: InvalidTokenReason;
  /** The claim concerned, for `claim` failures (name only, never its value). */
  readonly claim: string | undefined;
  constructor(reason: InvalidTokenReason, context?: ErrorContext, claim?: string) {
    super(reason, context);
    this.claim = claim;
  }
}

/** 401 with a bare `Bearer realm="…"` challenge: the request carried no access token (RFC 6750 §3.1). */
export class MissingTokenError extends AuthError {
  readonly status = 401;
  readonly code = undefined;
  declare readonly reason: 'missing_token';
  constructor(context?: ErrorContext) {
    super('missing_token', context);
  }
}

/** 403 `insufficient_scope`, with the required scopes in the challenge's `scope` attribute. */
export class InsufficientScopeError extends AuthError {
  readonly status = 403;
  readonly code = 'insufficient_scope' as const;
  declare readonly reason: 'insufficient_scope';
  /** The scopes the request needed. */
  readonly requiredScopes: readonly string[];
  /** Whether all of {@link InsufficientScopeError.requiredScopes} were needed, or any one. */
  readonly mode: 'all' | 'any';
  constructor(requiredScopes: readonly string[], mode: 'all' | 'any', context?: ErrorContext) {
    super('insufficient_scope', context);
    this.requiredScopes = Object.freeze([...requiredScopes]);
    this.mode = mode;
  }
  override get wwwAuthenticate(): string {
    return challenges(this.context, {
      error: this.code,
      errorDescription: this.description,
      scope: this.requiredScopes.join(' '),
    });
  }
}

/**
 * 403 `insufficient_scope` with reason `insufficient_role`: the token lacks a role a route requires
 * (`requireRole()`). RFC 6750 §3.1 defines `insufficient_scope` as "the request requires higher
 * privileges than provided by the access token", which a missing role is, and clients already know
 * the code (Spring Security answers every authorization failure of a bearer token with it). The
 * challenge carries no `scope` attribute — roles are not scopes a client could ask for — and never
 * names the roles; `reason` and `error_description` tell a role from a scope failure.
 *
 * @example
 * ```ts
 * import { InsufficientRoleError } from '@gatehouse/core';
 *
 * if (err instanceof InsufficientRoleError) log.info({ needed: err.requiredRoles, mode: err.mode });
 * ```
 */
export class InsufficientRoleError extends AuthError {
  readonly status = 403;
  readonly code = 'insufficient_scope' as const;
  declare readonly reason: 'insufficient_role';
  /** The roles the request needed (for logs; never sent to the client). */
  readonly requiredRoles: readonly string[];
  /** Whether all of {@link InsufficientRoleError.requiredRoles} were needed, or any one. */
  readonly mode: 'all' | 'any';
  constructor(requiredRoles: readonly string[], mode: 'all' | 'any', context?: ErrorContext) {
    super('insufficient_role', context);
    this.requiredRoles = Object.freeze([...requiredRoles]);
    this.mode = mode;
  }
}

/**
 * 401 `insufficient_user_authentication` (RFC 9470 §3): the token is valid, but the user's sign-in
 * behind it is not strong enough (`acr` not among the route's `acrValues`) or not recent enough
 * (`auth_time` older than the route's `maxAge`). The challenge names what the route needs
 * (`acr_values="…"`, `max_age="…"`), so the client can sign the user in again with those values.
 *
 * @example
 * ```ts
 * import { InsufficientUserAuthenticationError } from '@gatehouse/core';
 *
 * if (err instanceof InsufficientUserAuthenticationError) {
 *   await client.signIn({ acrValues: err.acrValues, maxAge: err.maxAge });
 * }
 * ```
 */
export class InsufficientUserAuthenticationError extends AuthError {
  readonly status = 401;
  readonly code = 'insufficient_user_authentication' as const;
  declare readonly reason: 'acr_not_accepted' | 'auth_time_too_old';
  /** The authentication context classes the route accepts, in order of preference (empty: any). */
  readonly acrValues: readonly string[];
  /** The oldest sign-in the route accepts, in seconds since `auth_time`, or `undefined` for any. */
  readonly maxAge: number | undefined;
  constructor(
    reason: 'acr_not_accepted' | 'auth_time_too_old',
    required: { readonly acrValues?: readonly string[] | undefined; readonly maxAge?: number | undefined },
    context?: ErrorContext,
  ) {
    super(reason, context);
    this.acrValues = Object.freeze([...(required.acrValues ?? [])]);
    this.maxAge = required.maxAge;
  }
  override get wwwAuthenticate(): string {
    return challenges(this.context, {
      error: this.code,
      errorDescription: this.description,
      acrValues: this.acrValues.length === 0 ? undefined : this.acrValues.join(' '),
      maxAge: this.maxAge === undefined ? undefined : String(this.maxAge),
    });
  }
}

/** 403 `access_denied`: the token is valid but this route refuses it (a delegated token where delegation is off). */
export class ForbiddenError extends AuthError {
  readonly status = 403;
  readonly code = 'access_denied' as const;
  declare readonly reason: 'delegation_not_allowed';
  constructor(reason: 'delegation_not_allowed', context?: ErrorContext) {
    super(reason, context);
  }
}

/** Reasons an {@link InvalidDpopProofError} can carry. */
export type DpopProofReason = Extract<AuthErrorReason, `dpop_${string}`> &
  Exclude<AuthErrorReason, 'dpop_binding' | 'dpop_nonce'>;

/**
 * 401 `invalid_dpop_proof` (RFC 9449 §7.1): the request's DPoP proof is missing, malformed, not made
 * for this request, stale or replayed. Sent in the `DPoP` challenge, with `algs`.
 */
export class InvalidDpopProofError extends AuthError {
  readonly status = 401;
  readonly code = 'invalid_dpop_proof' as const;
  declare readonly reason: DpopProofReason;
  constructor(reason: DpopProofReason, context?: ErrorContext) {
    super(reason, context);
  }
  override get wwwAuthenticate(): string {
    return challenges(this.context, { error: this.code, errorDescription: this.description }, true);
  }
}

/**
 * 401 `use_dpop_nonce` (RFC 9449 §9): the proof must carry the server nonce given in the `DPoP-Nonce`
 * header of this answer; the client retries with it.
 */
export class UseDpopNonceError extends AuthError {
  readonly status = 401;
  readonly code = 'use_dpop_nonce' as const;
  declare readonly reason: 'dpop_nonce';
  /** The nonce the client must put in its next proof. */
  readonly nonce: string;
  constructor(nonce: string, context?: ErrorContext) {
    super('dpop_nonce', context);
    this.nonce = nonce;
  }
  override get wwwAuthenticate(): string {
    return challenges(this.context, { error: this.code, errorDescription: this.description }, true);
  }
  override get headers(): Readonly<Record<string, string>> {
    return { 'www-authenticate': this.wwwAuthenticate, 'dpop-nonce': this.nonce };
  }
}

/**
 * 503 with `Retry-After` and no challenge: something the resource server needs to decide is down, so
 * it fails closed — never a 2xx, and never a 401 that would blame the client. The body says
 * `temporarily_unavailable`; the `cause` (kept out of the serialized form) says why.
 *
 * @example
 * ```ts
 * import { UnavailableError } from '@gatehouse/core';
 *
 * if (err instanceof UnavailableError) metrics.increment('auth.unavailable', { reason: err.reason });
 * ```
 */
export abstract class UnavailableError extends AuthError {
  readonly status = 503;
  readonly code = undefined;
  /** Seconds after which a retry may succeed (at least 1). */
  readonly retryAfter: number;
  constructor(
    reason:
      | 'jwks_unavailable'
      | 'issuer_unavailable'
      | 'replay_store_unavailable'
      | 'introspection_unavailable',
    retryAfter: number,
    context?: ErrorContext,
    options?: { cause?: unknown },
  ) {
    super(reason, context);
    this.retryAfter = Math.max(1, Math.ceil(retryAfter));
    if (options?.cause !== undefined)
      Object.defineProperty(this, 'cause', { value: options.cause, enumerable: false });
  }
  override get wwwAuthenticate(): undefined {
    return undefined;
  }
  override get headers(): Readonly<Record<string, string>> {
    return { 'retry-after': String(this.retryAfter) };
  }
  override toJSON(): { error: string; error_description: string } {
    return { error: 'temporarily_unavailable', error_description: this.description };
  }
}

/**
 * 503 with `Retry-After`: no usable signing key can be had because discovery or the JWKS endpoint is
 * unreachable. The resource server fails closed, and never blames the client with a 401.
 */
export class KeysUnavailableError extends UnavailableError {
  declare readonly reason: 'jwks_unavailable';
  constructor(retryAfter: number, context?: ErrorContext, options?: { cause?: unknown }) {
    super('jwks_unavailable', retryAfter, context, options);
  }
}

/**
 * 503 with `Retry-After: 1`: the `issuer` function (tenants) threw, rejected, answered something other
 * than a boolean or did not answer within `issuerCache.timeout`, so the token's issuer can be neither
 * trusted nor refused. The `cause` holds what the function threw (never sent to the client).
 *
 * @example
 * ```ts
 * import { IssuerUnavailableError } from '@gatehouse/core';
 *
 * if (err instanceof IssuerUnavailableError) logger.error({ cause: err.cause }, 'tenant lookup failed');
 * ```
 */
export class IssuerUnavailableError extends UnavailableError {
  declare readonly reason: 'issuer_unavailable';
  constructor(context?: ErrorContext, options?: { cause?: unknown }) {
    super('issuer_unavailable', 1, context, options);
  }
}

/**
 * 503 with `Retry-After: 1`: the DPoP replay store failed (e.g. Redis is down), so a proof cannot be
 * known to be fresh. The resource server fails closed rather than accept a possible replay.
 */
export class ReplayStoreUnavailableError extends UnavailableError {
  declare readonly reason: 'replay_store_unavailable';
  constructor(context?: ErrorContext, options?: { cause?: unknown }) {
    super('replay_store_unavailable', 1, context, options);
  }
}

/**
 * 503 with `Retry-After`: the token must be introspected (RFC 7662) but the introspection endpoint is
 * down, slow, refuses the resource server's credentials or answers something that is not an
 * introspection response. The `cause` says which, never with the token or the client secret in it.
 *
 * @example
 * ```ts
 * import { IntrospectionUnavailableError } from '@gatehouse/core';
 *
 * if (err instanceof IntrospectionUnavailableError) logger.warn({ cause: String(err.cause) }, 'introspection down');
 * ```
 */
export class IntrospectionUnavailableError extends UnavailableError {
  declare readonly reason: 'introspection_unavailable';
  constructor(retryAfter: number, context?: ErrorContext, options?: { cause?: unknown }) {
    super('introspection_unavailable', retryAfter, context, options);
  }
}

/**
 * What {@link KeySetError} (and so `onWarning`) reports: why the signing keys cannot be had, or
 * `audience_mismatch` ({@link AudienceMismatchError}): tokens of a trusted issuer refused for their audience.
 */
export type KeySetErrorCode =
  | 'audience_mismatch'
  | 'issuer_mismatch'
  | 'metadata_not_found'
  | 'metadata_invalid'
  | 'jwks_uri_invalid'
  | 'jwks_uri_origin'
  | 'http_error'
  | 'not_json'
  | 'jwks_invalid'
  | 'no_usable_key'
  | 'redirect'
  | 'too_large'
  | 'insecure_url'
  | 'tls'
  | 'host_not_found'
  | 'timeout'
  | 'connection_failed'
  | 'server_error';

/**
 * Why a verifier cannot get its signing keys, for the developer (never sent to clients, who get a
 * generic 503): `kind` tells a configuration problem (a wrong `issuer`, metadata or a JWKS that is not
 * there, no usable key, a TLS or DNS error) from an outage (timeouts, refused connections, 5xx). The
 * message names the configured issuer, the URL and what was found instead, and says what to check.
 * `warmUp()` rejects with it, `onWarning` receives it, and it is the `cause` of `KeysUnavailableError`.
 * `onWarning` also receives its subclass {@link AudienceMismatchError} (code `audience_mismatch`).
 *
 * @example
 * ```ts
 * import { createVerifier, KeySetError } from '@gatehouse/core';
 *
 * try {
 *   await verifier.warmUp(); // at start-up: a misconfigured API fails here, not at the first request
 * } catch (err) {
 *   if (err instanceof KeySetError && err.kind === 'configuration') {
 *     console.error(err.message); process.exit(1);
 *   }
 * }
 * ```
 */
export class KeySetError extends Error {
  override readonly name: string = 'KeySetError';
  /** Stable machine-readable cause. */
  readonly code: KeySetErrorCode;
  /** `configuration`: fix the setup; `outage`: the issuer or the network is down, retries may succeed. */
  readonly kind: 'configuration' | 'outage';
  /** The configured issuer. */
  readonly issuer: string;
  /** The URL that failed, when one did. */
  readonly url: string | undefined;
  constructor(
    code: KeySetErrorCode,
    kind: 'configuration' | 'outage',
    issuer: string,
    url: string | undefined,
    message: string,
  ) {
    super(message);
    this.code = code;
    this.kind = kind;
    this.issuer = issuer;
    this.url = url;
  }
}

/**
 * Tokens signed by a trusted issuer are refused for their audience (clients get 401 `invalid_token`,
 * reason `audience`, and nothing more): given to `onWarning`, once per issuer and audiences named per
 * `DEFAULTS.warningInterval`. The message names the issuer, the audiences the tokens name and those
 * the `audience` option accepts, says when they differ only by a trailing slash, letter case, scheme or
 * host, and what to change. It never holds a token; the audiences it names come from tokens, so they
 * are bounded and made printable (`DEFAULTS.audienceWarnings`). A {@link KeySetError} (code
 * `audience_mismatch`, kind `configuration`, no `url`), so `onWarning` keeps its one parameter type.
 *
 * @example
 * ```ts
 * import { AudienceMismatchError, createVerifier } from '@gatehouse/core';
 *
 * const verifier = createVerifier({
 *   issuer: 'https://id.example.com/oidc',
 *   audience: 'https://api.example.com',
 *   onWarning: (warning) => {
 *     if (warning instanceof AudienceMismatchError) logger.warn({ named: warning.audiences }, warning.message);
 *     else logger.error(warning.message);
 *   },
 * });
 * ```
 */
export class AudienceMismatchError extends KeySetError {
  override readonly name: string = 'AudienceMismatchError';
  /** The audiences the refused tokens name (at most `DEFAULTS.audienceWarnings.maxAudiences`, made printable); empty when they name none. */
  readonly audiences: readonly string[];
  /** The audiences the `audience` option accepts for this issuer. */
  readonly accepted: readonly string[];
  constructor(issuer: string, audiences: readonly string[], accepted: readonly string[], message: string) {
    super('audience_mismatch', 'configuration', issuer, undefined, message);
    this.audiences = Object.freeze([...audiences]);
    this.accepted = Object.freeze([...accepted]);
  }
}

/** Every concrete error class, for exhaustive handling. */
export type AnyAuthError =
  | InvalidRequestError
  | InvalidTokenError
  | MissingTokenError
  | InsufficientScopeError
  | InsufficientRoleError
  | InsufficientUserAuthenticationError
  | ForbiddenError
  | KeysUnavailableError
  | IssuerUnavailableError
  | InvalidDpopProofError
  | UseDpopNonceError
  | ReplayStoreUnavailableError
  | IntrospectionUnavailableError;

/**
 * Narrow an unknown value to an {@link AuthError}.
 *
 * @example
 * ```ts
 * import { isAuthError } from '@gatehouse/core';
 * if (isAuthError(err) && err.reason === 'expired') refreshAndRetry();
 * ```
 */
export function isAuthError(value: unknown): value is AnyAuthError {
  return value instanceof AuthError;
}
