/**
 * RFC 6750 §3 `WWW-Authenticate` challenge builder, for the `Bearer` scheme and RFC 9449 §7.1's `DPoP`
 * scheme (which adds `algs`, the proof algorithms accepted).
 *
 * Every value placed in a quoted-string is reduced to the characters RFC 6750 allows for
 * `error_description` and `scope` (%x20-21 / %x23-5B / %x5D-7E): no `"`, `\`, CR, LF or other
 * control characters can ever reach a header, whatever the caller passes.
 *
 * @module
 */

/** Attributes of one `Bearer` (or `DPoP`) challenge. */
export interface ChallengeParams {
  /** Authentication scheme. Default `Bearer`. */
  scheme?: 'Bearer' | 'DPoP' | undefined;
  /** Protection space, e.g. `"orders-api"`. Always sent, so clients can tell APIs apart. */
  realm?: string | undefined;
  /** OAuth error code (`invalid_request`, `invalid_token`, `insufficient_scope`, …). Omitted for a missing token. */
  error?: string | undefined;
  /** Human-readable, fixed text. Never derived from token contents. */
  errorDescription?: string | undefined;
  /** Space-separated scopes the request needs (for `insufficient_scope`). */
  scope?: string | undefined;
  /** RFC 9728 protected resource metadata URL, sent as `resource_metadata`. */
  resourceMetadata?: string | undefined;
  /** RFC 9470 §3: space-separated `acr` values the resource accepts (for `insufficient_user_authentication`). */
  acrValues?: string | undefined;
  /** RFC 9470 §3: the oldest accepted sign-in, in seconds since `auth_time` (for `insufficient_user_authentication`). */
  maxAge?: string | undefined;
  /** `DPoP` only: space-separated JWS algorithms accepted for proofs (RFC 9449 §7.1). */
  algs?: string | undefined;
}

/** Drop every character outside RFC 6750's quoted-string repertoire (also `"` and `\`). */
export function sanitizeChallengeValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) out += value[i];
  }
  return out;
}

/**
 * Build one challenge of a `WWW-Authenticate` header: the `Bearer` scheme, or `DPoP` with `algs`.
 * Several challenges go in one header value separated by `, ` (RFC 9110 §11.6.1).
 *
 * @example
 * ```ts
 * import { buildChallenge } from '@gatehouse/core';
 *
 * buildChallenge({ realm: 'orders', error: 'insufficient_scope', scope: 'read:orders' });
 * // 'Bearer realm="orders", error="insufficient_scope", scope="read:orders"'
 * buildChallenge({ scheme: 'DPoP', realm: 'orders', algs: 'ES256 EdDSA' });
 * // 'DPoP realm="orders", algs="ES256 EdDSA"'
 * ```
 */
export function buildChallenge(params: ChallengeParams): string {
  const parts: string[] = [];
  const add = (name: string, value: string | undefined) => {
    if (value !== undefined) parts.push(`${name}="${sanitizeChallengeValue(value)}"`);
  };
  add('realm', params.realm);
  add('error', params.error);
  add('error_description', params.errorDescription);
  add('scope', params.scope);
  add('acr_values', params.acrValues);
  add('max_age', params.maxAge);
  add('algs', params.algs);
  add('resource_metadata', params.resourceMetadata);
  const scheme = params.scheme ?? 'Bearer';
  return parts.length === 0 ? scheme : `${scheme} ${parts.join(', ')}`;
}

/** Where the challenge is issued: realm and RFC 9728 metadata URL, set by the verifier. */
export interface ErrorContext {
  realm?: string | undefined;
  resourceMetadata?: string | undefined;
  /** The verifier's DPoP support: which challenges to send, and the proof algorithms (`algs`). */
  dpop?: { readonly mode: 'allowed' | 'required' | 'disabled'; readonly algs: string } | undefined;
  /** The scheme the request used: `dpop` puts the error in the `DPoP` challenge. Default `bearer`. */
  scheme?: 'bearer' | 'dpop' | undefined;
}

/** The error attributes of a challenge. */
export interface ChallengeError {
  error: string | undefined;
  errorDescription: string | undefined;
  scope?: string | undefined;
  acrValues?: string | undefined;
  maxAge?: string | undefined;
}

/**
 * The `WWW-Authenticate` value for `context` (not exported from the package): the challenge of each
 * scheme the verifier accepts, the error in the one of the scheme the request used (or in `DPoP` with
 * `forceDpop`, for proof errors), and `algs` in the `DPoP` one.
 */
export function challenges(context: ErrorContext, attributes: ChallengeError, forceDpop = false): string {
  const mode = context.dpop?.mode ?? 'disabled';
  const errorInDpop = forceDpop || mode === 'required' || context.scheme === 'dpop';
  const base = { realm: context.realm, resourceMetadata: context.resourceMetadata };
  if (mode === 'disabled' && !errorInDpop) return buildChallenge({ ...base, ...attributes });
  const dpop = buildChallenge({
    ...base,
    ...(errorInDpop ? attributes : {}),
    scheme: 'DPoP',
    algs: context.dpop?.algs,
  });
  if (mode === 'required') return dpop;
  const bearer = buildChallenge({ ...base, ...(errorInDpop ? {} : attributes) });
  return `${bearer}, ${dpop}`;
}
