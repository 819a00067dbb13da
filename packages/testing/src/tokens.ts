/**
 * Minting access tokens: RFC 9068 `at+jwt` JWTs with sensible default claims, and the raw JWS pieces the
 * ready-made bad tokens are built from (a tampered signature, an unsigned `alg: none` token).
 *
 * Tokens are signed by `jws.ts` (`signCompact`), over exactly the header and payload built here, so that
 * header fields a verifier must refuse (`crit`, `b64`, `jku`, `jwk`, `x5u`, …) are written verbatim for
 * negative tests.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { DEFAULTS } from './defaults.js';
import { b64url, nowSeconds } from './jws.js';
import type { SigningKey } from './keys.js';
import type { SignOptions } from './options.js';
import { certificateThumbprint, type JwkInput, thumbprint } from './thumbprint.js';

/** The claim values a token gets when the caller does not set them. */
export interface ClaimDefaults {
  readonly issuer: string;
  readonly audience: string | readonly string[];
  readonly subject: string;
  readonly clientId: string;
  readonly scope: string | undefined;
  /** Seconds. */
  readonly expiresIn: number;
}

/**
 * The claims of an access token: defaults (`iss`, `sub`, `aud`, `client_id`, `scope` when configured, `iat`,
 * `exp`, `jti`), then `nbf` from `options.notBefore`, then `claims` over them. A claim set to `undefined` is
 * left out of the token. Without an explicit `exp`, `exp = iat + expiresIn`.
 *
 * @example
 * ```ts
 * accessTokenClaims(defaults, { scope: 'read:orders', sub: undefined }, { expiresIn: 60 });
 * // { iss, aud, client_id, scope: 'read:orders', iat, exp: iat + 60, jti }
 * ```
 */
export function accessTokenClaims(
  defaults: ClaimDefaults,
  claims: Readonly<Record<string, unknown>> = {},
  options: SignOptions = {},
  now: number = nowSeconds(),
): Record<string, unknown> {
  const iat = typeof claims.iat === 'number' ? claims.iat : now;
  const payload: Record<string, unknown> = {
    iss: defaults.issuer,
    sub: defaults.subject,
    aud: Array.isArray(defaults.audience) ? [...defaults.audience] : defaults.audience,
    client_id: defaults.clientId,
    ...(defaults.scope === undefined ? {} : { scope: defaults.scope }),
    iat: now,
    exp: iat + (options.expiresIn ?? defaults.expiresIn),
    jti: randomUUID(),
  };
  if (options.notBefore !== undefined) payload.nbf = now + options.notBefore;
  const cnf = confirmation(options);
  if (cnf !== undefined) payload.cnf = cnf;
  Object.assign(payload, claims);
  for (const name of Object.keys(payload)) if (payload[name] === undefined) delete payload[name];
  return payload;
}

/**
 * The `cnf` claim (RFC 7800) of a sender-constrained token, from the `dpop` and `certificate` options:
 * `jkt` (RFC 9449 §6.1) and `x5t#S256` (RFC 8705 §3.1). `undefined` when neither is set.
 *
 * @example
 * ```ts
 * confirmation({ dpop: key }); // { jkt: key.thumbprint }
 * confirmation({ certificate: client }); // { 'x5t#S256': client.thumbprint }
 * ```
 */
export function confirmation(options: SignOptions): Record<string, string> | undefined {
  const { dpop, certificate } = options;
  if (dpop === undefined && certificate === undefined) return undefined;
  const cnf: Record<string, string> = {};
  // The thumbprint is computed from the public JWK, never taken from the caller's object.
  if (dpop !== undefined) cnf.jkt = thumbprint('publicJwk' in dpop ? (dpop.publicJwk as JwkInput) : dpop);
  if (certificate !== undefined) cnf['x5t#S256'] = certificateThumbprint(certificate);
  return cnf;
}

/**
 * The JOSE header of a token signed by `key`: `{ alg, kid, typ }`, then `options.typ` and `options.header`.
 * Fields set to `undefined` are removed. Throws a `TypeError` when `header.alg` differs from the key's.
 */
export function tokenHeader(key: SigningKey, options: SignOptions = {}): Record<string, unknown> {
  const header: Record<string, unknown> = {
    alg: key.alg,
    kid: key.kid,
    typ: options.typ ?? DEFAULTS.typ,
    ...options.header,
  };
  if (header.alg !== key.alg) {
    throw new TypeError(
      `"header.alg" option must equal the signing key's algorithm (${key.alg}); use tokens.algNone() for an unsigned token`,
    );
  }
  for (const name of Object.keys(header)) if (header[name] === undefined) delete header[name];
  return header;
}

/**
 * An unsigned token (`alg: "none"`, empty signature segment), as in CVE-2015-9235-style attacks.
 *
 * @example
 * ```ts
 * unsignedToken({ sub: 'admin' }); // 'eyJhbGciOiJub25lIiwidHlwIjoiYXQrand0In0.eyJzdWIiOiJhZG1pbiJ9.'
 * ```
 */
export function unsignedToken(
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
): string {
  const h = { alg: 'none', typ: DEFAULTS.typ, ...header };
  return `${b64url(JSON.stringify(h))}.${b64url(JSON.stringify(payload))}.`;
}

/**
 * The same token with one bit of its signature flipped: header and payload are untouched, the encoding
 * stays canonical base64url, and the signature no longer verifies.
 *
 * @example
 * ```ts
 * const bad = tamperSignature(await issuer.sign());
 * ```
 */
export function tamperSignature(token: string): string {
  const dot = token.lastIndexOf('.');
  if (dot === -1) throw new TypeError('token must be a compact JWS');
  const signature = Buffer.from(token.slice(dot + 1), 'base64url');
  if (signature.length === 0) throw new TypeError('token must be signed');
  const i = signature.length >> 1;
  signature[i] = signature[i]! ^ 0x01;
  return `${token.slice(0, dot + 1)}${b64url(signature)}`;
}
