/**
 * How every request to the issuer is made and how its failures become the client's typed errors:
 * oauth4webapi request options (custom `fetch`, the plain-HTTP policy per target URL, a timeout), and
 * the mapping of oauth4webapi and network errors to `ClientError`s. No token or server body is ever
 * copied into an error.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import {
  type ClientError,
  NetworkError,
  type OAuthEndpoint,
  OAuthResponseError,
  ServerResponseError,
  SignInCallbackError,
} from '../errors.js';
import type { ResolvedOptions } from '../options.js';
import { insecureAllowed, parseUrl } from './url.js';

/** Options accepted by every oauth4webapi request function. */
export interface RequestOptions {
  /** A fresh timeout signal per request. */
  signal: (url: string) => AbortSignal;
  [oauth.customFetch]?: (
    url: string,
    init: oauth.CustomFetchOptions<'GET' | 'POST', URLSearchParams | undefined>,
  ) => Promise<Response>;
  [oauth.allowInsecureRequests]?: boolean;
}

/**
 * Request options for a request to `target` (the endpoint URL; `undefined` when it is not known, in
 * which case plain HTTP is refused).
 *
 * @example
 * ```ts
 * await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...requestOptions(options, issuer) });
 * ```
 */
export function requestOptions(options: ResolvedOptions, target: string | URL | undefined): RequestOptions {
  const out: RequestOptions = { signal: () => AbortSignal.timeout(options.timeout) };
  const url = target === undefined ? undefined : parseUrl(String(target));
  if (url !== null && url !== undefined && insecureAllowed(url, options.insecure)) {
    out[oauth.allowInsecureRequests] = true;
  }
  const custom = options.fetch;
  if (custom !== undefined) out[oauth.customFetch] = (url, init) => custom(url, init as RequestInit);
  return out;
}

function isNetworkFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  // fetch rejects with a TypeError; a timeout aborts with a TimeoutError or AbortError DOMException.
  return (
    (err.name === 'TypeError' && !('code' in err && String(err.code).startsWith('ERR_'))) ||
    err.name === 'TimeoutError' ||
    err.name === 'AbortError'
  );
}

/**
 * Turn whatever an oauth4webapi call threw into a `ClientError` (rethrowing programming errors as they
 * are).
 *
 * @example
 * ```ts
 * try { await oauth.processRefreshTokenResponse(as, client, response); }
 * catch (err) { throw toClientError(err, 'token'); }
 * ```
 */
export function toClientError(err: unknown, endpoint: OAuthEndpoint): ClientError | unknown {
  if (err instanceof oauth.ResponseBodyError) {
    return new OAuthResponseError(endpoint, err.error, {
      errorDescription: err.error_description,
      status: err.status,
    });
  }
  if (err instanceof oauth.AuthorizationResponseError) {
    return new OAuthResponseError(endpoint, err.error, { errorDescription: err.error_description });
  }
  if (err instanceof oauth.WWWAuthenticateChallengeError) {
    const challenge = err.cause.find((c) => typeof c.parameters.error === 'string') ?? err.cause[0];
    return new OAuthResponseError(endpoint, challenge?.parameters.error ?? 'invalid_client', {
      errorDescription: challenge?.parameters.error_description,
      status: err.status,
    });
  }
  if (err instanceof oauth.OperationProcessingError || err instanceof oauth.UnsupportedOperationError) {
    const status = err.cause instanceof Response ? err.cause.status : undefined;
    return new ServerResponseError(`Unexpected answer from the ${endpoint} endpoint: ${err.message}`, status);
  }
  if (isNetworkFailure(err)) return new NetworkError(err);
  return err;
}

/**
 * Run `operation` and throw its failure as a `ClientError`.
 *
 * @example
 * ```ts
 * const tokens = await guard('token', async () => oauth.processRefreshTokenResponse(as, client, await send()));
 * ```
 */
export async function guard<T>(endpoint: OAuthEndpoint, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    throw toClientError(err, endpoint);
  }
}

/**
 * Like {@link guard} for validating a sign-in callback: a response that is not a valid authorization
 * response (wrong issuer, missing code) is a `SignInCallbackError`; an OAuth error in it stays an
 * `OAuthResponseError`.
 *
 * @example
 * ```ts
 * const params = guardCallback(() => oauth.validateAuthResponse(as, client, url, state));
 * ```
 */
export function guardCallback<T>(operation: () => T): T {
  try {
    return operation();
  } catch (err) {
    if (err instanceof oauth.AuthorizationResponseError) throw toClientError(err, 'authorization');
    if (err instanceof oauth.OperationProcessingError || err instanceof oauth.UnsupportedOperationError) {
      throw new SignInCallbackError('invalid_callback');
    }
    throw err;
  }
}
