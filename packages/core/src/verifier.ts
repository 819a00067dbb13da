/**
 * `createVerifier()`: the ordered access-token check every adapter calls.
 *
 * Order (the first failure is reported; no claim is read before the signature is verified):
 * 1. well-formed compact JWS, accepted `alg` (no fetch happens for a malformed token);
 * 2. signature, with a key from the JWKS selected by `kid` and `alg` only; then the header `typ`;
 * 3. `iss`; 4. `aud`; 5. `exp` (required) / `nbf` / `maxTokenAge`;
 *    then the RFC 9068 profile (`strict`), claim types, the `act` chain and configured claim checks;
 * 6. delegation policy and required scopes (per verifier and per call).
 *
 * @module
 */

import { createAuthInfo } from './auth-info.js';
import { findBearerToken } from './bearer.js';
import { ResultCache } from './cache.js';
import { checkClaims, checkType } from './claims.js';
import { discoverJwksUri } from './discovery.js';
import {
  type ErrorContext,
  ForbiddenError,
  InsufficientScopeError,
  InvalidTokenError,
  MissingTokenError,
} from './errors.js';
import type { KeyEntry } from './jwk.js';
import { type KeySetStats, RemoteKeySet } from './jwks.js';
import { JwsParser, type ParsedJws } from './jws.js';
import { type ResolvedOptions, resolveOptions, type VerifierOptions } from './options.js';
import { hasScopes, type ScopeMode, toScopeList } from './scopes.js';
import { verifySignature } from './signature.js';
import type { AuthInfo, RequestLike } from './types.js';

/** Per-call requirements. */
export interface VerifyOptions {
  /** Scopes this call needs, as a list or a space-separated string. */
  scopes?: string | readonly string[];
  /** `all` (default): every scope; `any`: at least one. */
  scopeMode?: ScopeMode;
  /** Accept tokens carrying `act` (delegation / impersonation). Default `true`; `false` answers 403. */
  allowDelegation?: boolean;
}

/** Options of {@link Verifier.authenticate}. */
export interface AuthenticateOptions extends VerifyOptions {
  /** Let requests without any token through as anonymous (`undefined`); a present but bad token still fails. */
  optional?: boolean;
}

/** A configured access-token verifier with its own key cache and result cache. */
export interface Verifier {
  /** The validated options. */
  readonly options: ResolvedOptions;
  /** Where errors' challenges point: realm and RFC 9728 metadata URL. */
  readonly context: ErrorContext;
  /**
   * Verify a token and the call's requirements. Resolves to the {@link AuthInfo}; rejects with an
   * `AuthError` (never anything else for a bad token).
   */
  verify(token: string, options?: VerifyOptions): Promise<AuthInfo>;
  /**
   * Extract the bearer token of a request (RFC 6750 §2) and verify it. Rejects with
   * `MissingTokenError` when there is none, unless `optional` is set (then resolves to `undefined`).
   */
  authenticate(
    request: RequestLike,
    options: AuthenticateOptions & { optional: true },
  ): Promise<AuthInfo | undefined>;
  authenticate(request: RequestLike, options?: AuthenticateOptions): Promise<AuthInfo>;
  /** Check an already verified token against further requirements (scopes, delegation). Throws an `AuthError`. */
  authorize(info: AuthInfo, options: VerifyOptions): void;
  /** Fetch the JWKS now, e.g. at start-up so the first request does not wait. */
  warmUp(): Promise<void>;
  /** Key-cache counters. */
  readonly keyStats: KeySetStats;
  /** Drop every cached result. */
  clearCache(): void;
}

/**
 * Create a verifier. Options are validated here: a bad one throws a `TypeError` naming it.
 *
 * @example
 * ```ts
 * import { createVerifier } from '@gatehouse/core';
 *
 * const verifier = createVerifier({
 *   issuer: 'https://id.example.com/oidc',
 *   audience: 'https://api.example.com/orders',
 * });
 *
 * const auth = await verifier.verify(token, { scopes: ['read:orders'] });
 * console.log(auth.subject, auth.actor?.sub);
 * ```
 */
export function createVerifier(options: VerifierOptions): Verifier {
  const resolved = resolveOptions(options);
  const context: ErrorContext = Object.freeze({
    realm: resolved.realm,
    resourceMetadata: resolved.resourceMetadata,
  });
  const parser = new JwsParser(resolved.algorithms, context);
  const cache =
    resolved.cache === false ? undefined : new ResultCache(resolved.cache.max, resolved.jwks.cacheMaxAge);
  const issuer = resolved.issuers[0]!;
  const keys = new RemoteKeySet({
    uri: resolved.jwksUri ?? ((counted) => discoverJwksUri(issuer, counted)),
    jwks: resolved.jwks,
    fetch: resolved.fetch,
    allowInsecureHttp: resolved.allowInsecureHttp,
    context,
    onChange: () => cache?.clear(),
  });
  const tokenSources = { ...resolved.tokenSources, context };
  const invalid = (reason: ConstructorParameters<typeof InvalidTokenError>[0]) =>
    new InvalidTokenError(reason, context);

  // One-entry memo of the header `typ` check: an issuer sends the same `typ` on every token.
  let lastTyp: string | undefined | null = null;
  let lastTypOk = false;

  /** Steps 1–5. Synchronous when the keys are cached; a promise only when the key set must be resolved. */
  function verifyToken(token: string): AuthInfo | Promise<AuthInfo> {
    if (typeof token !== 'string' || token.length === 0) throw invalid('malformed');
    if (token.length > resolved.maxTokenLength) throw invalid('token_too_large');

    // 1. shape and algorithm
    const jws = parser.parse(token);
    const { alg, kid } = jws.header;

    // 2. key (sync when cached) and signature
    const candidates = keys.select(kid, alg);
    if (candidates !== undefined) return finish(token, jws, candidates);
    return keys.resolve(kid, alg).then((found) => finish(token, jws, found));
  }

  function finish(token: string, jws: ParsedJws, candidates: readonly KeyEntry[]): AuthInfo {
    const { alg, typ } = jws.header;
    let verified = false;
    for (const entry of candidates) {
      if (verifySignature(alg, entry.key, jws.signingInput, jws.signature)) {
        verified = true;
        break;
      }
    }
    if (!verified) throw invalid('signature');
    if (typ !== lastTyp) {
      lastTypOk = checkType(typ, resolved.strict);
      lastTyp = typ;
    }
    if (!lastTypOk) throw invalid('typ');

    // 3–5 and profile checks
    const now = Date.now() / 1000;
    const checked = checkClaims(jws.payload, resolved, now, context);
    const info = createAuthInfo(token, jws.payload, checked);
    // Never beyond the key set's freshness: a key removed from the JWKS must stop working after cacheMaxAge.
    cache?.set(token, info, Math.min(checked.validUntil, keys.freshUntil / 1000), now);
    return info;
  }

  function authorize(info: AuthInfo, call: VerifyOptions = {}): void {
    if (call.allowDelegation === false && info.delegated)
      throw new ForbiddenError('delegation_not_allowed', context);
    if (resolved.requiredScopes.length > 0 && !hasScopes(info.scopes, resolved.requiredScopes, 'all')) {
      throw new InsufficientScopeError(resolved.requiredScopes, 'all', context);
    }
    if (call.scopes !== undefined) {
      const required = toScopeList(call.scopes);
      const mode = call.scopeMode ?? 'all';
      if (!hasScopes(info.scopes, required, mode)) throw new InsufficientScopeError(required, mode, context);
    }
  }

  function check(info: AuthInfo, call: VerifyOptions | undefined): AuthInfo {
    if (call !== undefined || resolved.requiredScopes.length > 0) authorize(info, call);
    return info;
  }

  // Not `async`: a cached or synchronously verified token settles with a single promise.
  function verify(token: string, call?: VerifyOptions): Promise<AuthInfo> {
    try {
      const hit =
        cache !== undefined && typeof token === 'string' ? cache.get(token, Date.now() / 1000) : undefined;
      const result = hit ?? verifyToken(token);
      if (result instanceof Promise) return result.then((info) => check(info, call));
      return Promise.resolve(check(result, call));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  const isKnown = cache === undefined ? undefined : (token: string) => cache.has(token);

  // Not `async`, like verify(): a cached token settles with a single promise.
  function authenticate(request: RequestLike, call: AuthenticateOptions = {}): Promise<AuthInfo | undefined> {
    let token: string | undefined;
    try {
      token = findBearerToken(request, tokenSources, isKnown);
    } catch (error) {
      return Promise.reject(error);
    }
    if (token === undefined) {
      return call.optional === true
        ? Promise.resolve(undefined)
        : Promise.reject(new MissingTokenError(context));
    }
    return verify(token, call);
  }

  return Object.freeze({
    options: resolved,
    context,
    verify,
    authenticate: authenticate as Verifier['authenticate'],
    authorize,
    warmUp: () => keys.refresh(),
    get keyStats() {
      return keys.stats;
    },
    clearCache: () => cache?.clear(),
  });
}
