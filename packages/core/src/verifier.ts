/**
 * `createVerifier()`: the ordered access-token check every adapter calls.
 *
 * Order (the first failure is reported; no claim is read before the signature is verified):
 * 1. well-formed compact JWS, accepted `alg` (no fetch happens for a malformed token); the unverified
 *    `iss` picks the key set of an allowed issuer (issuers.ts), or the token fails with no fetch;
 * 2. signature, with a key from that issuer's JWKS selected by `kid` and `alg` only; then the header `typ`;
 * 3. `iss`; 4. `aud`; 5. `exp` (required) / `nbf` / `maxTokenAge`;
 *    then the RFC 9068 profile (`strict`), claim types, the `act` chain and configured claim checks;
 * 6. the sender binding for the request (sender-constraint.ts): a certificate-bound token's client
 *    certificate; a DPoP-bound token's proof (every check of RFC 9449 §4.3, then the replay store),
 *    run on every request, also for a token served from the result cache;
 * 7. delegation policy, required scopes (per verifier and per call) and required roles (per call).
 *
 * Steps 1–5 of a JWT are in jwt-verification.ts, step 7 in authorization.ts; this file wires a
 * verifier's parts together and runs the steps in order for `verify()` and `authenticate()`.
 *
 * With `introspection`, steps 1–2 of an opaque token (or of every token, in `always` mode) are an
 * RFC 7662 introspection instead (introspection/introspector.ts); the answer then goes through steps 3–7.
 *
 * @module
 */

import { AudienceWarnings } from './audience-warning.js';
import { createAuthorizer, type VerifyOptions } from './authorization.js';
import { checkTokenSyntax, findCredentials } from './bearer.js';
import { ResultCache } from './cache.js';
import {
  AUTHENTICATE_OPTION_KEYS,
  callOptions,
  checkCallOptions,
  VERIFY_OPTION_KEYS,
} from './call-options.js';
import { readProof } from './dpop-proof.js';
import {
  type ErrorContext,
  InvalidTokenError,
  KeySetError,
  KeysUnavailableError,
  MissingTokenError,
} from './errors.js';
import { type FetchRequestOptions, isFetchRequest, toRequestLike } from './fetch-request.js';
import type { Maybe } from './internal/maybe.js';
import { Introspector } from './introspection/introspector.js';
import { IssuerRegistry, type IssuerState, type KeyStats } from './issuers.js';
import { JwsParser } from './jws.js';
import { createJwtVerification } from './jwt-verification.js';
import { type ResolvedOptions, resolveOptions, type VerifierOptions } from './options.js';
import { SenderConstraint } from './sender-constraint.js';
import { createTelemetry } from './telemetry/telemetry.js';
import type { AuthInfo, RequestLike } from './types.js';

/** The options of a call that passes none: checked once, frozen. */
const NO_OPTIONS: AuthenticateOptions = callOptions({});

/** Options of {@link Verifier.authenticate}. */
export interface AuthenticateOptions extends VerifyOptions, FetchRequestOptions {
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
   * `AuthError` (never anything else for a bad token). Without a request there is no proof nor
   * certificate to check, so a sender-constrained token is refused here: use `authenticate()`.
   */
  verify(token: string, options?: VerifyOptions): Promise<AuthInfo>;
  /**
   * Extract the access token of a request (RFC 6750 §2; the `DPoP` scheme of RFC 9449 unless DPoP is
   * disabled), verify it and its sender binding (DPoP proof, client certificate). Rejects with
   * `MissingTokenError` when there is none, unless `optional` is set (then resolves to `undefined`).
   * `request` is an adapter's {@link RequestLike} or a WHATWG `Request` (Bun, Deno, Workers, Next.js,
   * Hono), whose URL names the `htu` of DPoP proofs unless the `origin` option is given.
   *
   * @example
   * ```ts
   * const auth = await verifier.authenticate(request, { scopes: 'read:orders', origin: 'https://api.example.com' });
   * ```
   */
  authenticate(
    request: RequestLike | Request,
    options: AuthenticateOptions & { optional: true },
  ): Promise<AuthInfo | undefined>;
  authenticate(request: RequestLike | Request, options?: AuthenticateOptions): Promise<AuthInfo>;
  /**
   * {@link Verifier.authenticate} without a promise when the answer is ready now — on Node, a token
   * in the result cache, or any token whose keys are cached: the {@link AuthInfo} (or `undefined`), or
   * a promise when keys must be fetched (or on WebCrypto). A failure known now is thrown, a later one
   * rejects, with the same `AuthError` `authenticate()` rejects with. For adapters on a hot path
   * whose framework can carry on synchronously.
   *
   * @example
   * ```ts
   * const result = verifier.authenticateNow(request);
   * const auth = result instanceof Promise ? await result : result;
   * ```
   */
  authenticateNow(
    request: RequestLike | Request,
    options?: AuthenticateOptions,
  ): AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** Check an already verified token against further requirements (scopes, roles, delegation). Throws an `AuthError`. */
  authorize(info: AuthInfo, options: VerifyOptions): void;
  /**
   * Fetch the signing keys now, at start-up: the first request does not wait, and a misconfigured API
   * fails at boot. Rejects with a {@link KeySetError} that says what is wrong (wrong `issuer`, no
   * metadata, no usable key, TLS, outage).
   */
  warmUp(): Promise<void>;
  /** The DPoP nonce to send in a `DPoP-Nonce` header now, or `undefined` when nonces are off. */
  dpopNonce(): string | undefined;
  /** Key-cache counters, over every issuer's key set. */
  readonly keyStats: KeyStats;
  /**
   * The state held for a trusted issuer (its options, key set and, once discovered, its metadata), or
   * `undefined` for an issuer that is not listed nor yet trusted by the `issuer` function.
   */
  issuerState(iss: string): IssuerState | undefined;
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
  const { dpop } = resolved;
  const context: ErrorContext = Object.freeze({
    realm: resolved.realm,
    resourceMetadata: resolved.resourceMetadata,
    dpop: dpop.mode === 'disabled' ? undefined : Object.freeze({ mode: dpop.mode, algs: dpop.algs }),
  });
  const dpopContext: ErrorContext = Object.freeze({ ...context, scheme: 'dpop' as const });
  // OpenTelemetry (telemetry/): `undefined` when off or not installed, and then no hook at all.
  const telemetry = createTelemetry(resolved.telemetry, () => issuers.states());
  const cache =
    resolved.cache === false
      ? undefined
      : (telemetry?.resultCache(resolved.cache.max, resolved.jwks.cacheMaxAge) ??
        new ResultCache(resolved.cache.max, resolved.jwks.cacheMaxAge));
  const issuers = new IssuerRegistry(resolved, context, () => cache?.clear(), telemetry?.keySets);
  const audienceWarnings =
    resolved.onWarning === undefined ? undefined : new AudienceWarnings(resolved.onWarning);
  const parser = new JwsParser(issuers.algorithms, context);
  const introspector =
    resolved.introspection === undefined
      ? undefined
      : new Introspector({
          resolved,
          introspection: resolved.introspection,
          keys: resolved.issuers.length === 1 ? issuers.get(resolved.issuers[0]!)?.keys : undefined,
          cache,
          context,
          audienceWarnings,
          observer: telemetry?.introspection,
        });
  const binding = new SenderConstraint(dpop, resolved.mtls, { bearer: context, dpop: dpopContext });
  const tokenSources = { ...resolved.tokenSources, context };
  const acceptsDpop = binding.acceptsDpop;
  // Steps 1–5 of a JWT (jwt-verification.ts) and step 7 (authorization.ts).
  const verifyToken = createJwtVerification({ resolved, parser, issuers, cache, context, audienceWarnings });
  const authorizeChecked = createAuthorizer(resolved, { bearer: context, dpop: dpopContext });

  /**
   * Steps 1–5, from the result cache when possible. `unchecked`: the token's b64token syntax is still to
   * be checked, which a cached token needs not (a verified compact JWS is base64url and dots).
   */
  function verified(token: string, now: number, unchecked = false): AuthInfo | Promise<AuthInfo> {
    const hit = cache !== undefined && typeof token === 'string' ? cache.get(token, now) : undefined;
    if (hit !== undefined) return confirmed(hit, token, now);
    if (unchecked) checkTokenSyntax(token, context);
    if (introspector?.handles(token)) return introspector.verify(token, now);
    const local = verifyToken(token);
    return local instanceof Promise
      ? local.then((info) => confirmed(info, token, now))
      : confirmed(local, token, now);
  }

  /** `info` of a locally verified JWT, once the issuer says it is still active when that must be asked. */
  function confirmed(info: AuthInfo, token: string, now: number): AuthInfo | Promise<AuthInfo> {
    return introspector?.confirms(info) ? introspector.verify(token, now).then(() => info) : info;
  }

  function authorize(info: AuthInfo, call: VerifyOptions = NO_OPTIONS): void {
    checkCallOptions(call, AUTHENTICATE_OPTION_KEYS, 'authorize');
    authorizeChecked(info, call);
  }

  function check(info: AuthInfo, call: VerifyOptions | undefined): AuthInfo {
    if (call !== undefined || resolved.requiredScopes.length > 0 || resolved.stepUp !== undefined)
      authorizeChecked(info, call ?? NO_OPTIONS);
    return info;
  }

  /** verify(), with the result itself when it is ready now; throws what fails now. */
  function verifyNow(token: string, call?: VerifyOptions): Maybe<AuthInfo> {
    if (call !== undefined) checkCallOptions(call, VERIFY_OPTION_KEYS, 'verify');
    const now = Date.now() / 1000;
    const bearerOnly = (info: AuthInfo) => {
      binding.check(info, 'bearer', undefined, undefined, now);
      return check(info, call);
    };
    const result = verified(token, now);
    return result instanceof Promise ? result.then(bearerOnly) : bearerOnly(result);
  }

  // Not `async`: a cached or synchronously verified token settles with a single promise.
  function verify(token: string, call?: VerifyOptions): Promise<AuthInfo> {
    try {
      const result = entry.verifyNow(token, call);
      return result instanceof Promise ? result : Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** An error of the token checks, for a request that used the `DPoP` scheme: its challenge carries it. */
  const inDpop = (error: unknown): unknown =>
    error instanceof InvalidTokenError && error.context !== dpopContext
      ? new InvalidTokenError(error.reason, dpopContext, error.claim)
      : error;

  // Not `async`, like verify(): a cached token with an in-memory replay store settles with one promise.
  function authenticate(
    request: RequestLike | Request,
    call: AuthenticateOptions = NO_OPTIONS,
  ): Promise<AuthInfo | undefined> {
    try {
      const result = entry.authenticateNow(request, call);
      return result instanceof Promise ? result : Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** authenticate(), with the result itself when it is ready now; throws what fails now. */
  function authenticateNow(
    request: RequestLike | Request,
    call: AuthenticateOptions = NO_OPTIONS,
  ): Maybe<AuthInfo | undefined> {
    checkCallOptions(call, AUTHENTICATE_OPTION_KEYS, 'authenticate');
    if (!isFetchRequest(request)) return authenticateLike(request, call);
    const like = toRequestLike(request, call, resolved.mtls.certificateHeader);
    return like instanceof Promise
      ? like.then((r) => authenticateLike(r, call))
      : authenticateLike(like, call);
  }

  /** The sender constraint of `info` for this request, then the call's requirements. */
  function bound(
    info: AuthInfo,
    scheme: 'bearer' | 'dpop',
    proof: string | undefined,
    request: RequestLike,
    now: number,
    call: AuthenticateOptions,
  ): AuthInfo | Promise<AuthInfo> {
    const pending = binding.check(info, scheme, proof, request, now);
    return pending === undefined ? check(info, call) : pending.then(() => check(info, call));
  }

  function authenticateLike(request: RequestLike, call: AuthenticateOptions): Maybe<AuthInfo | undefined> {
    let scheme: 'bearer' | 'dpop' = 'bearer';
    try {
      const found = findCredentials(request, tokenSources, true, acceptsDpop);
      if (found === undefined) {
        if (call.optional === true) return undefined;
        throw new MissingTokenError(context);
      }
      scheme = found.scheme;
      const proof = scheme === 'dpop' ? readProof(request, dpop.maxProofLength, dpopContext) : undefined;
      if (scheme === 'bearer') binding.precheck(scheme);
      const now = Date.now() / 1000;
      const result = verified(found.token, now, found.unchecked === true);
      // A closure only for a token not verified yet: a cached one is bound and checked now.
      const settled =
        result instanceof Promise
          ? result.then((info) => bound(info, scheme, proof, request, now, call))
          : bound(result, scheme, proof, request, now, call);
      if (!(settled instanceof Promise)) return settled;
      return scheme === 'dpop' ? settled.catch((error: unknown) => Promise.reject(inDpop(error))) : settled;
    } catch (error) {
      throw scheme === 'dpop' ? inDpop(error) : error;
    }
  }

  // The span and metrics of each call wrap these two; everything else is built on them.
  const entry =
    telemetry === undefined
      ? { verifyNow, authenticateNow }
      : { verifyNow: telemetry.traced(verifyNow), authenticateNow: telemetry.traced(authenticateNow) };

  return Object.freeze({
    options: resolved,
    context,
    verify,
    authenticate: authenticate as Verifier['authenticate'],
    authenticateNow: entry.authenticateNow,
    authorize,
    warmUp: () => {
      const keys = issuers.warmUp().catch((error: unknown) => {
        throw error instanceof KeysUnavailableError && error.cause instanceof KeySetError
          ? error.cause
          : error;
      });
      // Also the asynchronous import of @opentelemetry/api, where it could not be loaded at once.
      return telemetry?.ready === undefined ? keys : Promise.all([keys, telemetry.ready]).then(() => {});
    },
    dpopNonce: () => binding.nonce(Date.now() / 1000),
    get keyStats() {
      return issuers.stats;
    },
    issuerState: (iss: string) => issuers.get(iss),
    clearCache: () => cache?.clear(),
  });
}
