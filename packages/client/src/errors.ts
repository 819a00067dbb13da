/**
 * Every way a client call can fail at run time, as classes carrying the OAuth `error` code (the
 * server's own code when it answered with one, otherwise the nearest standard code), a stable machine
 * `reason`, and for server answers the HTTP `status` and `error_description`.
 *
 * Configuration mistakes are not here: they are `TypeError`s thrown by `createClient()`.
 *
 * Messages never contain a token, code, verifier or secret, so errors are safe to log.
 *
 * @module
 */

/**
 * Stable machine-readable causes. Safe to switch on; never renamed within a major version.
 *
 * @example
 * ```ts
 * if (isClientError(err) && err.reason === 'not_signed_in') await client.signIn();
 * ```
 */
export type ClientErrorReason =
  | 'oauth_error'
  | 'unknown_resource'
  | 'not_signed_in'
  | 'no_pending_sign_in'
  | 'state_mismatch'
  | 'invalid_callback'
  | 'invalid_response'
  | 'network';

/**
 * The endpoint whose answer an {@link OAuthResponseError} carries.
 *
 * @example
 * ```ts
 * if (err instanceof OAuthResponseError && err.endpoint === 'authorization') showSignInFailed(err.error);
 * ```
 */
export type OAuthEndpoint = 'authorization' | 'token' | 'revocation' | 'discovery';

/**
 * Base class of every error the client throws at run time.
 *
 * @example
 * ```ts
 * import { ClientError } from '@gatehouse/client';
 *
 * try {
 *   await client.getAccessToken('https://orders.example.com');
 * } catch (err) {
 *   if (err instanceof ClientError && err.error === 'invalid_grant') await client.signIn();
 *   else throw err;
 * }
 * ```
 */
export abstract class ClientError extends Error {
  /** The class name, spelled out so that minified builds keep it. */
  abstract override readonly name: AnyClientError['name'];
  /** Stable machine-readable cause. */
  abstract readonly reason: ClientErrorReason;
  /** OAuth `error` code: the server's (`invalid_grant`, `access_denied` …) or the nearest standard one. */
  readonly error: string;
  /** The server's `error_description`, when it sent one. */
  readonly errorDescription: string | undefined;
  /** HTTP status of the server's answer, when there was one. */
  readonly status: number | undefined;

  constructor(
    message: string,
    error: string,
    details: { errorDescription?: string | undefined; status?: number | undefined; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.error = error;
    this.errorDescription = details.errorDescription;
    this.status = details.status;
  }

  /** A plain object for logs and JSON responses. */
  toJSON(): {
    name: string;
    reason: ClientErrorReason;
    error: string;
    error_description?: string;
    status?: number;
  } {
    return {
      name: this.name,
      reason: this.reason,
      error: this.error,
      ...(this.errorDescription === undefined ? {} : { error_description: this.errorDescription }),
      ...(this.status === undefined ? {} : { status: this.status }),
    };
  }
}

/**
 * The authorization server answered with an OAuth error: a token request refused (`invalid_grant`
 * when the refresh token is expired or revoked, `invalid_target`, `invalid_scope`,
 * `unsupported_grant_type` …), or an error in the sign-in redirect (`access_denied`, `login_required`).
 * After `invalid_grant` on a refresh, the client has already forgotten its session: sign in again.
 *
 * @example
 * ```ts
 * import { OAuthResponseError } from '@gatehouse/client';
 *
 * try {
 *   await client.exchangeSubjectToken({ subjectToken, resource: 'https://orders.example.com' });
 * } catch (err) {
 *   if (err instanceof OAuthResponseError) console.warn(err.error, err.status); // e.g. invalid_request 400
 * }
 * ```
 */
export class OAuthResponseError extends ClientError {
  override readonly name = 'OAuthResponseError' as const;
  readonly reason = 'oauth_error' as const;
  /** Which endpoint answered. */
  readonly endpoint: OAuthEndpoint;
  constructor(
    endpoint: OAuthEndpoint,
    error: string,
    details: { errorDescription?: string | undefined; status?: number | undefined } = {},
  ) {
    const suffix = details.errorDescription === undefined ? '' : ` (${details.errorDescription})`;
    super(`The ${endpoint} endpoint answered "${error}"${suffix}`, error, details);
    this.endpoint = endpoint;
  }
}

/**
 * A resource indicator that is not in the client's `resources` option. Thrown before any request is
 * sent. Its `error` is `invalid_target` (RFC 8707).
 *
 * @example
 * ```ts
 * import { UnknownResourceError } from '@gatehouse/client';
 *
 * await client.getAccessToken('https://elsewhere.example.com').catch((err) => {
 *   if (err instanceof UnknownResourceError) console.error(err.resource, 'is not configured');
 * });
 * ```
 */
export class UnknownResourceError extends ClientError {
  override readonly name = 'UnknownResourceError' as const;
  readonly reason = 'unknown_resource' as const;
  /** The resource that was asked for. */
  readonly resource: string;
  constructor(resource: string) {
    super(
      `The resource ${JSON.stringify(resource)} is not one of the client's configured resources`,
      'invalid_target',
    );
    this.resource = resource;
  }
}

/**
 * No one is signed in (or the session ended): there is no refresh token to get an access token with.
 * Its `error` is `login_required`.
 *
 * @example
 * ```ts
 * import { NotSignedInError } from '@gatehouse/client';
 *
 * await client.getAccessToken(ORDERS).catch((err) => {
 *   if (err instanceof NotSignedInError) return client.signIn();
 *   throw err;
 * });
 * ```
 */
export class NotSignedInError extends ClientError {
  override readonly name = 'NotSignedInError' as const;
  readonly reason = 'not_signed_in' as const;
  constructor(detail = 'No one is signed in') {
    super(detail, 'login_required');
  }
}

/**
 * Reasons a {@link SignInCallbackError} can carry.
 *
 * @example
 * ```ts
 * const stale: SignInCallbackReason = 'no_pending_sign_in';
 * ```
 */
export type SignInCallbackReason = Extract<
  ClientErrorReason,
  'no_pending_sign_in' | 'state_mismatch' | 'invalid_callback'
>;

const CALLBACK_MESSAGES: Readonly<Record<SignInCallbackReason, string>> = Object.freeze({
  no_pending_sign_in:
    'No sign-in is pending in this storage (signIn() was not called, or it was used already)',
  state_mismatch: 'The sign-in callback does not belong to the pending sign-in (state mismatch)',
  invalid_callback: 'The sign-in callback URL is not a valid authorization response from this issuer',
});

/**
 * `handleSignInCallback(url)` was given a URL that does not complete the pending sign-in: nothing is
 * pending, its `state` differs (a forged or stale callback), or it is malformed or names another
 * issuer (RFC 9207). Its `error` is `invalid_request`.
 *
 * @example
 * ```ts
 * import { SignInCallbackError } from '@gatehouse/client';
 *
 * await client.handleSignInCallback(location.href).catch((err) => {
 *   if (err instanceof SignInCallbackError && err.reason === 'no_pending_sign_in') location.assign('/');
 * });
 * ```
 */
export class SignInCallbackError extends ClientError {
  override readonly name = 'SignInCallbackError' as const;
  readonly reason: SignInCallbackReason;
  constructor(reason: SignInCallbackReason) {
    super(CALLBACK_MESSAGES[reason], 'invalid_request');
    this.reason = reason;
  }
}

/**
 * The server's answer is not a valid OAuth / OpenID Connect response (bad JSON, missing fields, an ID
 * token for another client, discovery for another issuer). Its `error` is `server_error`.
 *
 * @example
 * ```ts
 * import { ServerResponseError } from '@gatehouse/client';
 *
 * await client.signIn().catch((err) => {
 *   if (err instanceof ServerResponseError) console.error('issuer misbehaves:', err.message);
 * });
 * ```
 */
export class ServerResponseError extends ClientError {
  override readonly name = 'ServerResponseError' as const;
  readonly reason = 'invalid_response' as const;
  constructor(message: string, status?: number) {
    super(message, 'server_error', { status });
  }
}

/**
 * The server could not be reached, or did not answer within `timeout`. Its `error` is
 * `temporarily_unavailable`; retrying later may succeed.
 *
 * @example
 * ```ts
 * import { NetworkError } from '@gatehouse/client';
 *
 * await client.getAccessToken(ORDERS).catch((err) => {
 *   if (err instanceof NetworkError) showOfflineBanner();
 * });
 * ```
 */
export class NetworkError extends ClientError {
  override readonly name = 'NetworkError' as const;
  readonly reason = 'network' as const;
  constructor(cause: unknown) {
    super('The authorization server could not be reached', 'temporarily_unavailable', { cause });
  }
}

/**
 * Every error class the client throws at run time, discriminated on `reason`.
 *
 * @example
 * ```ts
 * function describe(err: AnyClientError): string {
 *   return err.reason === 'unknown_resource' ? `not configured: ${err.resource}` : err.error;
 * }
 * ```
 */
export type AnyClientError =
  | OAuthResponseError
  | UnknownResourceError
  | NotSignedInError
  | SignInCallbackError
  | ServerResponseError
  | NetworkError;

/**
 * Whether `value` is one of the client's run-time errors.
 *
 * @example
 * ```ts
 * import { isClientError } from '@gatehouse/client';
 *
 * try {
 *   await client.getAccessToken(ORDERS);
 * } catch (err) {
 *   if (isClientError(err)) console.warn(err.reason, err.error);
 *   else throw err;
 * }
 * ```
 */
export function isClientError(value: unknown): value is AnyClientError {
  return value instanceof ClientError;
}
