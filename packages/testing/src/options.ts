/**
 * Options of {@link createTestIssuer} and of `issuer.sign()`, and their validation. Bad options throw a
 * `TypeError` naming the option when the issuer is created (or when `sign()` is called), never later.
 *
 * @module
 */
import { rejectUnknownOptions } from '@gatehouse/core';
import { DEFAULTS, TEST_ALGORITHMS, type TestAlgorithm } from './defaults.js';
import type { DpopKey } from './dpop.js';
import { type CertificateInput, certificateDer, type JwkInput, thumbprint } from './thumbprint.js';

/**
 * Options of {@link createTestIssuer}. Every one is optional; see {@link DEFAULTS}.
 *
 * @example
 * ```ts
 * const issuer = await createTestIssuer({
 *   audience: 'https://api.example.com/orders',
 *   alg: 'RS256',
 *   scope: 'read:orders',
 * });
 * ```
 */
export interface TestIssuerOptions {
  /**
   * Issuer identifier: `iss` of tokens, `issuer` of the discovery document. Default
   * `https://issuer.gatehouse.test/oidc`. An `http://127.0.0.1:PORT/...` URL makes `listen()` bind that port.
   */
  issuer?: string;
  /** Default `aud` of tokens. Default `https://api.gatehouse.test`. */
  audience?: string | string[];
  /** Signing algorithm. Default `ES256`. */
  alg?: TestAlgorithm;
  /** `kid` of the first signing key. Default: its RFC 7638 JWK thumbprint. */
  kid?: string;
  /** Default `sub` of tokens. Default `user-1`. */
  subject?: string;
  /** Default `client_id` of tokens. Default `test-client`. */
  clientId?: string;
  /** Default `scope` of tokens (space-separated). Default: no `scope` claim. */
  scope?: string;
  /** Default token lifetime in seconds. Default 300. */
  expiresIn?: number;
}

/**
 * Options of `issuer.sign()` and the other token factories.
 *
 * @example
 * ```ts
 * await issuer.sign({ scope: 'read:orders' }, { expiresIn: 60, typ: 'JWT', header: { jku: 'https://evil.test' } });
 * ```
 */
export interface SignOptions {
  /** Lifetime in seconds: `exp = iat + expiresIn`. Default: the issuer's `expiresIn` (300). Ignored when `claims.exp` is set. */
  expiresIn?: number;
  /** Sets `nbf = now + notBefore` (seconds; may be negative). Default: no `nbf`. */
  notBefore?: number;
  /** Sign with the published key that has this `kid` (e.g. the previous key after `rotateKeys()`). Default: the active key. */
  kid?: string;
  /**
   * Header fields merged over `{ alg, kid, typ }` and written verbatim (`crit`, `jku`, `jwk`, …); a field set
   * to `undefined` is removed (`{ kid: undefined }` signs a token without `kid`). `alg` cannot be changed:
   * use `tokens.algNone()` for an unsigned token.
   */
  header?: Record<string, unknown>;
  /** Header `typ`. Default `at+jwt`. */
  typ?: string;
  /**
   * Bind the token to a DPoP key (RFC 9449 §6): adds `cnf.jkt`, the key's RFC 7638 thumbprint. A key from
   * `generateDpopKey()` or any public JWK. Default: not bound. A `cnf` claim in `claims` replaces it.
   */
  dpop?: DpopKey | JwkInput;
  /**
   * Bind the token to a client certificate (RFC 8705 §3): adds `cnf["x5t#S256"]`, the SHA-256 thumbprint of
   * its DER. A certificate from `generateTestCertificate()`, its DER bytes or PEM. Default: not bound. With
   * `dpop` too, `cnf` holds both. A `cnf` claim in `claims` replaces it.
   */
  certificate?: CertificateInput;
}

/** {@link TestIssuerOptions} after defaults and validation. */
export interface ResolvedIssuerOptions {
  /** Whether the caller chose the issuer URL (then `listen()` never changes it). */
  readonly explicitIssuer: boolean;
  readonly issuer: string;
  readonly audience: string | readonly string[];
  readonly alg: TestAlgorithm;
  readonly kid: string | undefined;
  readonly subject: string;
  readonly clientId: string;
  readonly scope: string | undefined;
  readonly expiresIn: number;
}

/** Every member of {@link TestIssuerOptions}: the compiler keeps the list in step with the interface. */
const ISSUER_OPTIONS = Object.keys({
  issuer: 1,
  audience: 1,
  alg: 1,
  kid: 1,
  subject: 1,
  clientId: 1,
  scope: 1,
  expiresIn: 1,
} satisfies Record<keyof TestIssuerOptions, 1>);

/** Every member of {@link SignOptions}. */
const SIGN_OPTIONS = Object.keys({
  expiresIn: 1,
  notBefore: 1,
  kid: 1,
  header: 1,
  typ: 1,
  dpop: 1,
  certificate: 1,
} satisfies Record<keyof SignOptions, 1>);

const fail = (option: string, must: string): never => {
  throw new TypeError(`"${option}" option ${must}`);
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function nonEmptyString(value: unknown, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) return fail(option, 'must be a non-empty string');
  return value;
}

function finiteNumber(value: unknown, option: string, min?: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || (min !== undefined && value < min)) {
    return fail(option, min === undefined ? 'must be a finite number' : `must be a finite number >= ${min}`);
  }
  return value;
}

/**
 * Check an issuer identifier: an absolute `https:` or `http:` URL without query or fragment
 * (OpenID Connect Discovery §2, RFC 8414 §2).
 */
export function validateIssuerUrl(value: unknown, option = 'issuer'): string {
  let url: URL;
  try {
    url = new URL(value as string);
  } catch {
    return fail(option, 'must be an absolute URL');
  }
  if (typeof value !== 'string' || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    fail(option, 'must be an https: or http: URL string');
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    fail(option, 'must not contain a query, fragment or credentials');
  }
  return value as string;
}

/**
 * Merge {@link TestIssuerOptions} with {@link DEFAULTS} and validate them. Throws a `TypeError` naming the option.
 *
 * @example
 * ```ts
 * resolveIssuerOptions({ alg: 'HS256' as never });
 * // TypeError: "alg" option must be one of ES256, RS256, PS256, EdDSA
 * ```
 */
export function resolveIssuerOptions(input: TestIssuerOptions = {}): ResolvedIssuerOptions {
  if (!isObject(input)) throw new TypeError('options must be an object');
  rejectUnknownOptions(input, ISSUER_OPTIONS);
  const options: TestIssuerOptions = input;
  const issuer = options.issuer === undefined ? DEFAULTS.issuer : validateIssuerUrl(options.issuer);

  let audience: string | readonly string[] = DEFAULTS.audience;
  if (Array.isArray(options.audience)) {
    if (options.audience.length === 0) fail('audience', 'must not be an empty array');
    for (const a of options.audience)
      if (typeof a !== 'string' || a.length === 0) fail('audience', 'must contain non-empty strings only');
    audience = Object.freeze([...options.audience]);
  } else if (options.audience !== undefined) {
    audience = nonEmptyString(options.audience, 'audience') as string;
  }

  const alg = options.alg ?? DEFAULTS.alg;
  if (!TEST_ALGORITHMS.includes(alg)) fail('alg', `must be one of ${TEST_ALGORITHMS.join(', ')}`);

  const scope = options.scope;
  if (scope !== undefined && typeof scope !== 'string')
    fail('scope', 'must be a string of space-separated scopes');

  return Object.freeze({
    explicitIssuer: options.issuer !== undefined,
    issuer,
    audience,
    alg,
    kid: nonEmptyString(options.kid, 'kid'),
    subject: nonEmptyString(options.subject, 'subject') ?? DEFAULTS.subject,
    clientId: nonEmptyString(options.clientId, 'clientId') ?? DEFAULTS.clientId,
    scope,
    expiresIn: finiteNumber(options.expiresIn, 'expiresIn', 1) ?? DEFAULTS.expiresIn,
  });
}

/** Validate {@link SignOptions} (at call time). Throws a `TypeError` naming the option. */
export function validateSignOptions(options: unknown): SignOptions {
  if (options === undefined) return {};
  if (!isObject(options)) throw new TypeError('sign options must be an object');
  rejectUnknownOptions(options, SIGN_OPTIONS);
  finiteNumber(options.expiresIn, 'expiresIn');
  finiteNumber(options.notBefore, 'notBefore');
  nonEmptyString(options.kid, 'kid');
  if (options.typ !== undefined && typeof options.typ !== 'string') fail('typ', 'must be a string');
  if (options.header !== undefined && !isObject(options.header)) fail('header', 'must be an object');
  if (options.dpop !== undefined) {
    const dpop = options.dpop;
    if (!isObject(dpop)) return fail('dpop', 'must be a key from generateDpopKey() or a public JWK');
    try {
      thumbprint((isObject(dpop.publicJwk) ? dpop.publicJwk : dpop) as JwkInput);
    } catch (error) {
      fail('dpop', `must be a key from generateDpopKey() or a public JWK (${(error as Error).message})`);
    }
  }
  if (options.certificate !== undefined) {
    try {
      certificateDer(options.certificate as CertificateInput);
    } catch {
      fail('certificate', 'must be a certificate from generateTestCertificate(), its DER bytes or PEM');
    }
  }
  return options as SignOptions;
}

/** Validate a claims argument: a plain object (or nothing). */
export function validateClaims(claims: unknown, option = 'claims'): Record<string, unknown> {
  if (claims === undefined) return {};
  if (!isObject(claims)) return fail(option, 'must be an object');
  return claims;
}
