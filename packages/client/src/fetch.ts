/**
 * `client.fetch()`: call an API with the access token for one of the client's resources — as
 * `Authorization: DPoP <token>` with a fresh proof (`htm`, `htu`, `ath`) when DPoP is on, as
 * `Authorization: Bearer <token>` otherwise. A `401` carrying a `DPoP` challenge with
 * `error="use_dpop_nonce"` (RFC 9449 §9) is retried once with the `DPoP-Nonce` the API sent; every other
 * answer is returned as it is, like `fetch` does.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import type { Context } from './internal/context.js';
import { insecureAllowed, parseUrl } from './internal/url.js';
import type { TokenManager } from './tokens.js';

/**
 * Which token `client.fetch()` sends: the one for a configured resource indicator (from the session),
 * or a given one (e.g. the `accessToken` of `exchangeSubjectToken()`, bound to the same key).
 *
 * @example
 * ```ts
 * await client.fetch('https://orders.example.com', 'https://orders.example.com/orders');
 * await client.fetch({ accessToken: impersonation.accessToken }, 'https://orders.example.com/orders');
 * ```
 */
export type FetchTokenSource = string | { readonly accessToken: string };

function bodyOf(init: RequestInit): oauth.ProtectedResourceRequestBody {
  const body = init.body ?? null;
  if (
    body === null ||
    typeof body === 'string' ||
    body instanceof ArrayBuffer ||
    body instanceof Uint8Array ||
    body instanceof URLSearchParams ||
    body instanceof ReadableStream
  ) {
    return body;
  }
  throw new TypeError(
    'fetch(…, init): "body" must be a string, an ArrayBuffer, a Uint8Array, URLSearchParams or a ReadableStream',
  );
}

/**
 * Send `init` to `input` with the access token of `source`.
 *
 * @throws TypeError for a bad URL or a plain-`http:` URL the `allowInsecureRequests` policy refuses;
 *   `NotSignedInError`, `UnknownResourceError` or `OAuthResponseError` when no token can be had;
 *   and, like `fetch`, a `TypeError` when the API cannot be reached.
 * @example
 * ```ts
 * const res = await resourceFetch(ctx, tokens, 'https://orders.example.com', 'https://orders.example.com/orders', {});
 * ```
 */
export async function resourceFetch(
  ctx: Context,
  tokens: TokenManager,
  source: FetchTokenSource,
  input: string | URL,
  init: RequestInit = {},
): Promise<Response> {
  if (init === null || typeof init !== 'object')
    throw new TypeError('fetch(…, init): init must be an object');
  const url = input instanceof URL ? new URL(input.href) : typeof input === 'string' ? parseUrl(input) : null;
  if (url === null) throw new TypeError('fetch(resource, input): input must be an absolute URL');
  if (
    url.protocol !== 'https:' &&
    !(url.protocol === 'http:' && insecureAllowed(url, ctx.options.insecure))
  ) {
    throw new TypeError(
      'fetch(resource, input): input must use https: ("allowInsecureRequests" allows http: for loopback hosts)',
    );
  }
  let accessToken: string;
  if (typeof source === 'string') accessToken = await tokens.get(source);
  else if (
    source !== null &&
    typeof source === 'object' &&
    typeof source.accessToken === 'string' &&
    source.accessToken !== ''
  )
    accessToken = source.accessToken;
  else throw new TypeError('fetch(resource): resource must be a resource indicator or { accessToken }');
  const method = (init.method ?? 'GET').toUpperCase();
  const body = bodyOf(init);
  const DPoP = await ctx.dpop();
  const custom = ctx.options.fetch;
  const options: oauth.ProtectedResourceRequestOptions = {
    DPoP,
    signal: init.signal ?? undefined,
    [oauth.allowInsecureRequests]: url.protocol === 'http:',
    ...(custom === undefined
      ? {}
      : { [oauth.customFetch]: (target: string, request: RequestInit) => custom(target, request) }),
  };
  const send = () =>
    oauth.protectedResourceRequest(accessToken, method, url, new Headers(init.headers), body, options);
  try {
    try {
      return await send();
    } catch (err) {
      // A stream body cannot be sent twice: its answer is returned instead of a retry.
      if (DPoP !== undefined && oauth.isDPoPNonceError(err) && !(body instanceof ReadableStream))
        return await send();
      throw err;
    }
  } catch (err) {
    // Any other challenge (401, 403) is the API's answer to the caller, not an error of the client.
    if (err instanceof oauth.WWWAuthenticateChallengeError) return err.response;
    throw err;
  }
}
