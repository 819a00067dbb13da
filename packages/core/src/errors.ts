/**
 * Every way a request can fail authentication or authorization, as classes carrying the HTTP status,
 * the OAuth error code (RFC 6750 §3.1), a stable machine `reason`, a fixed safe description and the
 * response headers (`WWW-Authenticate`, `Retry-After`).
 *
 * Descriptions are constants chosen by `reason`: no claim value or token fragment is ever placed in
 * a message or header, so errors are safe to log and to send.
 *
 * @module
 */
import { buildChallenge } from './challenge.js';

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
  | 'jwks_unavailable';

/** OAuth error codes used in responses. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'access_denied';

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
  jwks_unavailable: 'The signing keys cannot be retrieved right now; try again later',
});

/** Where the challenge is issued: realm and RFC 9728 metadata URL, set by the verifier. */
export interface ErrorContext {
  realm?: string | undefined;
  resourceMetadata?: string | undefined;
}

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
  protected readonly context: ErrorContext;

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
    return buildChallenge({
      realm: this.context.realm,
      error: this.code,
      errorDescription: this.code === undefined ? undefined : this.description,
      resourceMetadata: this.context.resourceMetadata,
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
    return buildChallenge({
      realm: this.context.realm,
      error: this.code,
      errorDescription: this.description,
      scope: this.requiredScopes.join(' '),
      resourceMetadata: this.context.resourceMetadata,
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

/**
 * 503 with `Retry-After`: no usable signing key can be had because discovery or the JWKS endpoint is
 * unreachable. The resource server fails closed, and never blames the client with a 401.
 */
export class KeysUnavailableError extends AuthError {
  readonly status = 503;
  readonly code = undefined;
  declare readonly reason: 'jwks_unavailable';
  /** Seconds after which a retry may succeed. */
  readonly retryAfter: number;
  constructor(retryAfter: number, context?: ErrorContext, options?: { cause?: unknown }) {
    super('jwks_unavailable', context);
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

/** Every concrete error class, for exhaustive handling. */
export type AnyAuthError =
  | InvalidRequestError
  | InvalidTokenError
  | MissingTokenError
  | InsufficientScopeError
  | ForbiddenError
  | KeysUnavailableError;

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
