/**
 * RFC 6750 §3 `WWW-Authenticate: Bearer …` challenge builder.
 *
 * Every value placed in a quoted-string is reduced to the characters RFC 6750 allows for
 * `error_description` and `scope` (%x20-21 / %x23-5B / %x5D-7E): no `"`, `\`, CR, LF or other
 * control characters can ever reach a header, whatever the caller passes.
 *
 * @module
 */

/** Attributes of one `Bearer` challenge. */
export interface ChallengeParams {
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
 * Build the value of a `WWW-Authenticate` header for the Bearer scheme.
 *
 * @example
 * ```ts
 * import { buildChallenge } from '@gatehouse/core';
 *
 * buildChallenge({ realm: 'orders', error: 'insufficient_scope', scope: 'read:orders' });
 * // 'Bearer realm="orders", error="insufficient_scope", scope="read:orders"'
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
  add('resource_metadata', params.resourceMetadata);
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
}
