/**
 * The verifier's introspection path (RFC 7662): which tokens take it, the POST with the resource
 * server's client authentication, and the answer turned into the same {@link AuthInfo} a JWT gives.
 *
 * - `mode: 'opaque'`: a token shaped like a compact JWS (two dots) is verified locally, anything else
 *   is introspected; `mode: 'always'`: every token is; `mode: 'delegated'`: as `opaque`, and a JWT
 *   carrying `act` is asked about too once its local checks pass ({@link Introspector.confirms}).
 * - The endpoint is the configured one, or the issuer metadata's `introspection_endpoint`, which must
 *   be on the issuer's own origin: a token is never sent anywhere else (catalogue E8).
 * - `active: false` is `invalid_token` (`inactive`) and is not cached; an active answer passes the
 *   verifier's `iss`/`aud`/`exp`/`nbf`/`act`/`cnf`/claim checks and is cached no longer than its
 *   `exp` nor `cacheMaxAge`. Concurrent requests with one token share one introspection.
 * - An endpoint that is down, slow, refuses the credentials or answers garbage is a 503 with
 *   `Retry-After` ({@link IntrospectionUnavailableError}), never a 401 nor a 200.
 * - JWT answers (RFC 9701) are asked for when the discovered metadata offers them
 *   (`introspection_signing_alg_values_supported`) and verified with the issuer's keys.
 *
 * @module
 */

import type { AudienceWarnings } from '../audience-warning.js';
import { createAuthInfo } from '../auth-info.js';
import type { ResultCache } from '../cache.js';
import { checkClaims } from '../claims.js';
import { DEFAULTS } from '../defaults.js';
import { fetchMetadata } from '../discovery.js';
import {
  type ErrorContext,
  IntrospectionUnavailableError,
  InvalidTokenError,
  UnavailableError,
} from '../errors.js';
import { FetchFailure, type FetchLimits, fetchText } from '../internal/fetch.js';
import type { KeySet } from '../jwks.js';
import { isAllowedUrl, type ResolvedOptions } from '../options.js';
import type { AuthInfo } from '../types.js';
import type { ResolvedIntrospectionOptions } from './options.js';
import { IntrospectionFailure, JWT_RESPONSE_TYPE, readAnswer, toClaims } from './response.js';

/** Where to introspect, and whether to ask for a signed answer. */
interface Endpoint {
  readonly url: URL;
  readonly jwt: boolean;
}

/**
 * What the verifier shares with its introspection path.
 *
 * @example
 * ```ts
 * const deps: IntrospectorDeps = { resolved, introspection: resolved.introspection!, keys, cache, context };
 * ```
 */
export interface IntrospectorDeps {
  readonly resolved: ResolvedOptions;
  readonly introspection: ResolvedIntrospectionOptions;
  /** The only issuer's key set (RFC 9701 answers); `undefined` with several issuers or a resolver. */
  readonly keys: KeySet | undefined;
  readonly cache: ResultCache | undefined;
  readonly context: ErrorContext;
  /** Told when an answer is refused for its audience; `undefined` when `onWarning` is off. */
  readonly audienceWarnings?: AudienceWarnings | undefined;
  /** Times each introspection (telemetry); `undefined` when off. */
  readonly observer?: IntrospectionObserver | undefined;
}

/**
 * What the introspection path reports (the verifier's metrics).
 *
 * @example
 * ```ts
 * const observer: IntrospectionObserver = { observe: (pending) => (pending.finally(() => calls++), pending) };
 * ```
 */
export interface IntrospectionObserver {
  /** Watch one introspection from its start until it settles; returns `pending` itself. */
  observe<T>(pending: Promise<T>): Promise<T>;
}

/** Whether `token` has the shape of a compact JWS: exactly two dots. */
const isJwtShaped = (token: string): boolean => {
  const first = token.indexOf('.');
  const second = first === -1 ? -1 : token.indexOf('.', first + 1);
  return second !== -1 && token.indexOf('.', second + 1) === -1;
};

/**
 * Introspects tokens for one verifier.
 *
 * @example
 * ```ts
 * const introspector = new Introspector({ resolved, introspection: resolved.introspection!, keys, cache, context });
 * if (introspector.handles(token)) info = await introspector.verify(token, Date.now() / 1000);
 * ```
 */
export class Introspector {
  readonly #deps: IntrospectorDeps;
  /** The checks of an answer: the verifier's, minus the RFC 9068 JWT profile (`strict`), which is about JWTs. */
  readonly #claimOptions: ResolvedOptions;
  readonly #limits: FetchLimits;
  readonly #inFlight = new Map<string, Promise<AuthInfo>>();
  #endpoint: Promise<Endpoint> | undefined;
  /** Until when (ms) a failed discovery is answered 503 without asking again. */
  #discoveryRetryAt = 0;

  constructor(deps: IntrospectorDeps) {
    this.#deps = deps;
    this.#claimOptions = Object.freeze({ ...deps.resolved, strict: false });
    this.#limits = {
      fetch: deps.resolved.fetch,
      timeout: deps.introspection.timeout,
      maxResponseBytes: DEFAULTS.introspection.maxResponseBytes,
      allowInsecureHttp: deps.resolved.allowInsecureHttp,
    };
  }

  /** Whether `token` is introspected rather than verified locally (bad lengths go to the local checks). */
  handles(token: string): boolean {
    if (typeof token !== 'string' || token.length === 0 || token.length > this.#deps.resolved.maxTokenLength)
      return false;
    return this.#deps.introspection.mode === 'always' || !isJwtShaped(token);
  }

  /**
   * Whether a JWT verified locally as `info` must still be confirmed active at the issuer: a delegated
   * (impersonation) token in `delegated` mode.
   */
  confirms(info: AuthInfo): boolean {
    return info.delegated && this.#deps.introspection.mode === 'delegated';
  }

  /** Introspect `token` (one request for concurrent callers) and check the answer. */
  verify(token: string, now: number): Promise<AuthInfo> {
    const pending = this.#inFlight.get(token);
    if (pending !== undefined) return pending;
    const introspected = this.#introspect(token, now);
    const observed = this.#deps.observer?.observe(introspected) ?? introspected;
    const started = observed.finally(() => this.#inFlight.delete(token));
    this.#inFlight.set(token, started);
    return started;
  }

  async #introspect(token: string, now: number): Promise<AuthInfo> {
    const { introspection, context, cache } = this.#deps;
    let answer: Record<string, unknown>;
    try {
      const endpoint = await this.#resolveEndpoint();
      const body = new URLSearchParams({ token, token_type_hint: 'access_token' });
      const headers = new Headers({
        accept: endpoint.jwt ? `${JWT_RESPONSE_TYPE}, application/json;q=0.9` : 'application/json',
      });
      await introspection.clientAuth(
        { issuer: this.#issuer ?? '', introspection_endpoint: endpoint.url.href },
        { client_id: introspection.clientId },
        body,
        headers,
      );
      const { text, type } = await fetchText(endpoint.url, this.#limits, {
        method: 'POST',
        headers: Object.fromEntries(headers),
        body,
      });
      answer = await readAnswer(text, type, {
        issuer: this.#issuer ?? '',
        clientId: introspection.clientId,
        keys: this.#deps.keys,
        algorithms: this.#deps.resolved.algorithms,
        context,
      });
    } catch (error) {
      throw this.#unavailable(error);
    }
    if (answer.active !== true) throw new InvalidTokenError('inactive', context);
    const claims = toClaims(answer, this.#issuer);
    if (claims === undefined) throw new InvalidTokenError('claim', context, 'token_type');
    const checked = checkClaims(claims, this.#claimOptions, now, context, this.#deps.audienceWarnings);
    const info = createAuthInfo(token, claims, checked);
    if (introspection.cacheMaxAge > 0)
      cache?.set(token, info, Math.min(checked.validUntil, now + introspection.cacheMaxAge), now);
    return info;
  }

  /** The issuer whose endpoint answers: the only configured one (several need an explicit endpoint). */
  get #issuer(): string | undefined {
    const { issuers } = this.#deps.resolved;
    return issuers.length === 1 ? issuers[0] : undefined;
  }

  /** A 503 whose cause says what failed, in words that hold no token nor secret. */
  #unavailable(error: unknown): UnavailableError {
    if (error instanceof UnavailableError) return error; // the issuer's keys, for a JWT answer
    const message =
      error instanceof FetchFailure || error instanceof IntrospectionFailure
        ? error.message
        : 'the client authentication or the request failed';
    return new IntrospectionUnavailableError(DEFAULTS.introspection.retryAfter, this.#deps.context, {
      cause: new Error(`introspection failed: ${message}`),
    });
  }

  /** The configured endpoint, or the one discovered once from the issuer's metadata. */
  #resolveEndpoint(): Promise<Endpoint> {
    const configured = this.#deps.introspection.endpoint;
    if (configured !== undefined) return Promise.resolve({ url: configured, jwt: false });
    if (this.#endpoint !== undefined) return this.#endpoint;
    if (Date.now() < this.#discoveryRetryAt)
      return Promise.reject(new IntrospectionFailure('the issuer metadata could not be had recently'));
    const discovery = this.#discover();
    this.#endpoint = discovery;
    discovery.catch(() => {
      this.#endpoint = undefined;
      this.#discoveryRetryAt = Date.now() + DEFAULTS.introspection.retryAfter * 1000;
    });
    return discovery;
  }

  async #discover(): Promise<Endpoint> {
    const issuer = this.#issuer as string;
    const { resolved } = this.#deps;
    const { meta } = await fetchMetadata(issuer, {
      fetch: resolved.fetch,
      timeout: resolved.jwks.timeout,
      maxResponseBytes: resolved.jwks.maxResponseBytes,
      allowInsecureHttp: resolved.allowInsecureHttp,
    });
    const value = meta.introspection_endpoint;
    const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
    if (url === undefined)
      throw new IntrospectionFailure('the issuer metadata names no usable introspection_endpoint');
    if (!isAllowedUrl(url, resolved.allowInsecureHttp) || url.origin !== new URL(issuer).origin)
      throw new IntrospectionFailure(
        "the issuer metadata's introspection_endpoint is not an https: URL on the issuer's origin (set introspection.endpoint)",
      );
    const algs = meta.introspection_signing_alg_values_supported;
    return { url, jwt: Array.isArray(algs) && algs.length > 0 };
  }
}
