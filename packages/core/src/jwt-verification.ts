/**
 * Steps 1–5 of a JWT access token verified locally (the verifier.ts order): well-formed compact JWS
 * and accepted `alg`; the key set of the allowed issuer its unverified `iss` names; a key selected by
 * `kid` and `alg` only, and the signature; the header `typ`; then the claims (claims.ts). A verified
 * token goes into the result cache, never for longer than its key set stays fresh.
 *
 * Synchronous on Node when the keys are cached; a promise only when the key set must be resolved (or
 * on WebCrypto).
 *
 * @module
 */

import type { AudienceWarnings } from './audience-warning.js';
import { createAuthInfo } from './auth-info.js';
import type { ResultCache } from './cache.js';
import { checkClaims, checkType } from './claims.js';
import { type ErrorContext, InvalidTokenError } from './errors.js';
import { andThen, type Maybe } from './internal/maybe.js';
import { verifySignature } from './internal/platform.js';
import type { IssuerRegistry, IssuerState } from './issuers.js';
import type { KeyEntry } from './jwk.js';
import type { JwsParser, ParsedJws } from './jws.js';
import type { ResolvedOptions } from './options.js';
import type { AuthInfo } from './types.js';

/** What {@link createJwtVerification} checks a token with: the parts of one verifier. */
export interface JwtVerificationParts {
  readonly resolved: ResolvedOptions;
  readonly parser: JwsParser;
  readonly issuers: IssuerRegistry;
  readonly cache: ResultCache | undefined;
  readonly context: ErrorContext;
  readonly audienceWarnings: AudienceWarnings | undefined;
}

/**
 * The local verification of one verifier: a function that runs steps 1–5 on a token and returns its
 * {@link AuthInfo} (or a promise of it), or throws (rejects with) an `InvalidTokenError`.
 *
 * @example
 * ```ts
 * const verifyToken = createJwtVerification({ resolved, parser, issuers, cache, context, audienceWarnings });
 * const info = await verifyToken(token);
 * ```
 */
export function createJwtVerification(parts: JwtVerificationParts): (token: string) => Maybe<AuthInfo> {
  const { resolved, parser, issuers, cache, context, audienceWarnings } = parts;
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

    // The unverified `iss` only picks the key set of an allowed issuer (no fetch for any other).
    const issuer = issuers.select(jws.payload.iss);
    if (issuer instanceof Promise) return issuer.then((state) => withKeys(token, jws, state));
    return withKeys(token, jws, issuer);
  }

  /** 2. key (sync when cached) and signature. */
  function withKeys(token: string, jws: ParsedJws, issuer: IssuerState): Maybe<AuthInfo> {
    const { alg, kid } = jws.header;
    if (!issuer.algorithms.has(alg)) throw invalid('algorithm');
    const candidates = issuer.keys.select(kid, alg);
    if (candidates !== undefined) return finish(token, jws, issuer, candidates);
    return issuer.keys.resolve(kid, alg).then((found) => finish(token, jws, issuer, found));
  }

  /** Whether a candidate key, tried in order, verifies the signature (a promise only on WebCrypto). */
  function signedByAny(jws: ParsedJws, candidates: readonly KeyEntry[], from = 0): Maybe<boolean> {
    for (let i = from; i < candidates.length; i++) {
      const ok = verifySignature(jws.header.alg, candidates[i]!.key, jws.signingInput, jws.signature);
      if (ok === true) return true;
      if (ok !== false) return ok.then((yes) => yes || signedByAny(jws, candidates, i + 1));
    }
    return false;
  }

  function finish(
    token: string,
    jws: ParsedJws,
    issuer: IssuerState,
    candidates: readonly KeyEntry[],
  ): Maybe<AuthInfo> {
    const verified = signedByAny(jws, candidates);
    return verified === true
      ? accept(token, jws, issuer)
      : andThen(verified, (ok) => accept(token, jws, issuer, ok));
  }

  function accept(token: string, jws: ParsedJws, issuer: IssuerState, verified = true): AuthInfo {
    const { typ } = jws.header;
    if (!verified) throw invalid('signature');
    if (typ !== lastTyp) {
      lastTypOk = checkType(typ, resolved.strict);
      lastTyp = typ;
    }
    if (!lastTypOk) throw invalid('typ');

    // 3–5 and profile checks
    const now = Date.now() / 1000;
    const checked = checkClaims(jws.payload, issuer.options, now, context, audienceWarnings);
    const info = createAuthInfo(token, jws.payload, checked);
    // Never beyond the key set's freshness: a key removed from the JWKS must stop working after cacheMaxAge.
    cache?.set(token, info, Math.min(checked.validUntil, issuer.keys.freshUntil / 1000), now);
    return info;
  }

  return verifyToken;
}
