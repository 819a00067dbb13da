/**
 * Verifier options, the package's one frozen {@link DEFAULTS} object, and {@link resolveOptions}, the only
 * place where user options and defaults are merged and validated. Bad configuration throws a
 * `TypeError` naming the option when `createVerifier()` runs, never at request time.
 *
 * @module
 */

import { DEFAULTS, MAX_CLOCK_TOLERANCE } from './defaults.js';
import {
  type DpopOptions,
  type MtlsOptions,
  type ResolvedDpopOptions,
  type ResolvedMtlsOptions,
  resolveDpopOptions,
  resolveMtlsOptions,
} from './dpop-options.js';
import type { KeySetError } from './errors.js';
import { fail } from './internal/fail.js';
import { rejectUnknownKeys } from './internal/known-keys.js';
import { algorithmList, duration, isAllowedUrl, parseUrl, stringList } from './internal/option-values.js';
import {
  type IntrospectionOptions,
  type ResolvedIntrospectionOptions,
  resolveIntrospectionOptions,
} from './introspection/options.js';
import {
  type IssuerCacheOptions,
  type IssuerOptions,
  type IssuerResolver,
  type ResolvedIssuers,
  resolveIssuers,
} from './issuer-options.js';
import { type JwksOptions, resolveJwksOptions } from './jwks-options.js';
import { toScopeList } from './scopes.js';
import { resolveStepUp, type StepUpRequirement } from './step-up.js';
import {
  type ResolvedTelemetryOptions,
  resolveTelemetryOptions,
  type TelemetryOptions,
} from './telemetry/options.js';
import type { AccessTokenClaims, Algorithm } from './types.js';

export { isAllowedUrl };

/** A check on one claim: exact value, membership, or a predicate. */
export type ClaimCheck =
  | { readonly equals: string | number | boolean | null }
  | { readonly includes: string }
  | ((value: unknown, claims: AccessTokenClaims) => boolean);

/** Result cache options, or `false` to turn the cache off. */
export interface CacheOptions {
  /** Most cached results. Default 1000. */
  max?: number;
}

/** Where access tokens may be read from, besides the `Authorization` header. */
export interface TokenSourceOptions {
  /** Accept `?access_token=` (RFC 6750 §2.3; discouraged). Default `false`. */
  query?: boolean;
  /** Accept `access_token` in a form-encoded body (RFC 6750 §2.2). Default `false`. */
  body?: boolean;
}

/**
 * Options of {@link createVerifier}.
 *
 * @example
 * ```ts
 * const options: VerifierOptions = {
 *   issuer: 'https://id.example.com/oidc',
 *   audience: 'https://api.example.com/orders',
 *   strict: true,
 * };
 * ```
 */
export interface VerifierOptions {
  /**
   * Accepted issuer(s), compared exactly: one issuer, a list (each a string or an
   * {@link IssuerOptions} with its own `jwksUri`, `audience`, `algorithms`), or a function
   * `(iss) => boolean | Promise<boolean>` that decides which issuers to trust (tenants).
   */
  issuer: string | readonly (string | IssuerOptions)[] | IssuerResolver;
  /** Bounds of the caches behind an `issuer` function. */
  issuerCache?: IssuerCacheOptions;
  /** Resource indicator(s) of this API. A token passes when its `aud` contains one of them. */
  audience: string | readonly string[];
  /** JWKS URL. Default: discovered from each issuer's OpenID or RFC 8414 metadata. Shared by issuers that name none. */
  jwksUri?: string | URL;
  /** Accepted algorithms, a subset of {@link SUPPORTED_ALGORITHMS}. Default: all of them. */
  algorithms?: readonly Algorithm[];
  /** Seconds of clock skew tolerated. Default 5, at most 300. */
  clockTolerance?: number;
  /** Oldest accepted token, in seconds since its `iat` (which then becomes required). Default: no limit. */
  maxTokenAge?: number;
  /** RFC 9068 profile: `typ` must be `at+jwt`; `sub`, `client_id`, `iat` and `jti` are required. Default `false`. */
  strict?: boolean;
  /** Scopes every token must grant. Default: none. */
  requiredScopes?: string | readonly string[];
  /** RFC 9470 step-up for every token: accepted `acr` values. Default: any. */
  acrValues?: string | readonly string[];
  /** RFC 9470 step-up for every token: oldest accepted sign-in, seconds since `auth_time`. Default: any. */
  maxAge?: number;
  /** Extra checks per claim name; a failure is `invalid_token` with reason `claim`. */
  claims?: Readonly<Record<string, ClaimCheck>>;
  /** Remote JWKS cache settings. */
  jwks?: JwksOptions;
  /** Result cache settings, or `false` to disable. Default: on, 1000 entries. */
  cache?: CacheOptions | false;
  /** Custom `fetch` for discovery and JWKS (proxies, tests). Default: `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Allow `http:` URLs to non-loopback hosts. Default `false`. */
  allowInsecureHttp?: boolean;
  /** Longest accepted token in characters. Default 8192. */
  maxTokenLength?: number;
  /** Realm in `WWW-Authenticate`. Default `"api"`. */
  realm?: string;
  /** RFC 9728 protected resource metadata URL, added to every challenge as `resource_metadata`. */
  resourceMetadata?: string;
  /** Token sources besides the `Authorization` header. Default: header only. */
  tokenSources?: TokenSourceOptions;
  /** DPoP (RFC 9449): sender-constrained tokens with a proof per request. Default: allowed. */
  dpop?: DpopOptions;
  /** Certificate-bound tokens (RFC 8705). Default: a bound token needs its TLS client certificate. */
  mtls?: MtlsOptions;
  /** Token introspection (RFC 7662): opaque tokens, or every token where revocation must apply at once. Default: off. */
  introspection?: IntrospectionOptions;
  /**
   * Told why the signing keys cannot be had (a {@link KeySetError}: a wrong `issuer`, missing metadata,
   * no usable key, TLS or DNS errors, outages; clients only ever see a generic 503), and why tokens of
   * a trusted issuer are refused for their audience (an `AudienceMismatchError`, code
   * `audience_mismatch`; clients see a 401), once per distinct cause per `DEFAULTS.warningInterval`.
   * Default: `console.warn` of the message; `false` silences it.
   */
  onWarning?: ((warning: KeySetError) => void) | false;
  /**
   * OpenTelemetry spans and metrics (docs/observability.md): on when `@opentelemetry/api` is installed,
   * to the providers the application registered; explicit providers, or `false` to turn them off.
   */
  telemetry?: TelemetryOptions | false;
}

/** Every member of {@link VerifierOptions}: the compiler keeps this list in step with the interface. */
export const VERIFIER_OPTIONS: readonly string[] = Object.freeze(
  Object.keys({
    issuer: 1,
    issuerCache: 1,
    audience: 1,
    jwksUri: 1,
    algorithms: 1,
    clockTolerance: 1,
    maxTokenAge: 1,
    strict: 1,
    requiredScopes: 1,
    acrValues: 1,
    maxAge: 1,
    claims: 1,
    jwks: 1,
    cache: 1,
    fetch: 1,
    allowInsecureHttp: 1,
    maxTokenLength: 1,
    realm: 1,
    resourceMetadata: 1,
    tokenSources: 1,
    dpop: 1,
    mtls: 1,
    introspection: 1,
    onWarning: 1,
    telemetry: 1,
  } satisfies Record<keyof VerifierOptions, 1>),
);

/** Options after defaults and validation. */
export interface ResolvedOptions extends ResolvedIssuers {
  readonly audiences: readonly string[];
  readonly jwksUri: URL | undefined;
  readonly algorithms: ReadonlySet<Algorithm>;
  readonly clockTolerance: number;
  readonly maxTokenAge: number | undefined;
  readonly strict: boolean;
  readonly requiredScopes: readonly string[];
  /** The verifier-wide step-up requirement, or `undefined` for none. */
  readonly stepUp: StepUpRequirement | undefined;
  readonly claims: ReadonlyArray<readonly [string, ClaimCheck]>;
  readonly jwks: Readonly<Required<JwksOptions>>;
  readonly cache: Readonly<Required<CacheOptions>> | false;
  readonly fetch: typeof fetch;
  readonly allowInsecureHttp: boolean;
  readonly maxTokenLength: number;
  readonly realm: string;
  readonly resourceMetadata: string | undefined;
  readonly tokenSources: Readonly<Required<TokenSourceOptions>>;
  readonly dpop: ResolvedDpopOptions;
  readonly mtls: ResolvedMtlsOptions;
  /** `undefined` when introspection is off. */
  readonly introspection: ResolvedIntrospectionOptions | undefined;
  /** `undefined` when warnings are off. */
  readonly onWarning: ((warning: KeySetError) => void) | undefined;
  /** `false` when telemetry is off. */
  readonly telemetry: ResolvedTelemetryOptions | false;
}

function claimChecks(value: unknown): Array<readonly [string, ClaimCheck]> {
  if (value === undefined) return [];
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail('claims', 'must be an object');
  const out: Array<readonly [string, ClaimCheck]> = [];
  for (const [name, check] of Object.entries(value)) {
    const ok =
      typeof check === 'function' ||
      (check !== null &&
        typeof check === 'object' &&
        (('equals' in check && Object.keys(check).length === 1) ||
          ('includes' in check && Object.keys(check).length === 1 && typeof check.includes === 'string')));
    if (!ok) fail(`claims.${name}`, 'must be a function, { equals } or { includes: string }');
    out.push([name, check as ClaimCheck] as const);
  }
  return out;
}

/** The default `onWarning`: one line on stderr, never a token (a {@link KeySetError} holds none). */
const consoleWarning = (warning: KeySetError): void => {
  console.warn(`gatehouse: ${warning.message}`);
};

function warningHandler(value: unknown): ((warning: KeySetError) => void) | undefined {
  if (value === undefined) return consoleWarning;
  if (value === false) return undefined;
  if (typeof value !== 'function') return fail('onWarning', 'must be a function or false');
  return value as (warning: KeySetError) => void;
}

/**
 * Merge options with {@link DEFAULTS} and validate them. Throws a `TypeError` naming the option.
 *
 * @example
 * ```ts
 * import { resolveOptions } from '@gatehouse/core';
 * resolveOptions({ issuer: 'https://id.example.com', audience: 'https://api.example.com', clockTolerance: 600 });
 * // TypeError: "clockTolerance" option must be a number between 0 and 300 (seconds)
 * ```
 */
export function resolveOptions(options: VerifierOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  rejectUnknownKeys(options, VERIFIER_OPTIONS);
  const allowInsecureHttp = options.allowInsecureHttp ?? DEFAULTS.allowInsecureHttp;
  if (typeof allowInsecureHttp !== 'boolean') fail('allowInsecureHttp', 'must be a boolean');

  const audiences = stringList(options.audience, 'audience');
  const jwksUri =
    options.jwksUri === undefined ? undefined : parseUrl(options.jwksUri, 'jwksUri', allowInsecureHttp);
  const algorithms = algorithmList(options.algorithms, DEFAULTS.algorithms, 'algorithms');

  const issuers = resolveIssuers(options.issuer, options.issuerCache, {
    jwksUri,
    audiences,
    algorithms,
    allowInsecureHttp,
  });

  const clockTolerance = options.clockTolerance ?? DEFAULTS.clockTolerance;
  if (
    typeof clockTolerance !== 'number' ||
    !Number.isFinite(clockTolerance) ||
    clockTolerance < 0 ||
    clockTolerance > MAX_CLOCK_TOLERANCE
  ) {
    fail('clockTolerance', `must be a number between 0 and ${MAX_CLOCK_TOLERANCE} (seconds)`);
  }
  const maxTokenAge =
    options.maxTokenAge === undefined ? undefined : duration(options.maxTokenAge, 0, 'maxTokenAge', 1);

  const strict = options.strict ?? DEFAULTS.strict;
  if (typeof strict !== 'boolean') fail('strict', 'must be a boolean');

  let requiredScopes: readonly string[] = [];
  try {
    requiredScopes = toScopeList(options.requiredScopes);
  } catch {
    fail(
      'requiredScopes',
      'must be a space-separated string or an array of scope strings naming at least one scope (omit it for none)',
    );
  }

  const jwks = resolveJwksOptions(options.jwks, allowInsecureHttp);

  let cache: Readonly<Required<CacheOptions>> | false = false;
  if (options.cache !== false) {
    const c = options.cache ?? {};
    if (c === null || typeof c !== 'object') fail('cache', 'must be an object or false');
    rejectUnknownKeys(c, Object.keys(DEFAULTS.cache), 'cache.');
    const max = duration(c.max, DEFAULTS.cache.max, 'cache.max', 1);
    if (!Number.isInteger(max)) fail('cache.max', 'must be an integer');
    cache = Object.freeze({ max });
  }

  if (options.fetch !== undefined && typeof options.fetch !== 'function') fail('fetch', 'must be a function');
  // Without a custom fetch, look up globalThis.fetch per request so interceptors installed later (msw) apply.
  const fetchImpl: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  const maxTokenLength = duration(options.maxTokenLength, DEFAULTS.maxTokenLength, 'maxTokenLength', 16);
  const realm = options.realm ?? DEFAULTS.realm;
  if (typeof realm !== 'string' || /["\\\r\n]/.test(realm))
    fail('realm', 'must be a string without quotes, backslashes or line breaks');
  let resourceMetadata: string | undefined;
  if (options.resourceMetadata !== undefined)
    resourceMetadata = parseUrl(options.resourceMetadata, 'resourceMetadata', true).href;

  const ts = options.tokenSources ?? {};
  if (ts === null || typeof ts !== 'object') fail('tokenSources', 'must be an object');
  rejectUnknownKeys(ts, Object.keys(DEFAULTS.tokenSources), 'tokenSources.');
  const tokenSources = Object.freeze({
    query: ts.query ?? DEFAULTS.tokenSources.query,
    body: ts.body ?? DEFAULTS.tokenSources.body,
  });
  if (typeof tokenSources.query !== 'boolean') fail('tokenSources.query', 'must be a boolean');
  if (typeof tokenSources.body !== 'boolean') fail('tokenSources.body', 'must be a boolean');

  const introspection = resolveIntrospectionOptions(options.introspection, (value, option) =>
    parseUrl(value, option, allowInsecureHttp),
  );
  if (introspection !== undefined && introspection.endpoint === undefined && issuers.issuers.length !== 1)
    fail('introspection.endpoint', 'is required when several issuers (or an issuer function) are configured');

  return Object.freeze({
    ...issuers,
    audiences: Object.freeze(audiences),
    jwksUri,
    algorithms: new Set(algorithms as Algorithm[]),
    clockTolerance,
    maxTokenAge,
    strict,
    requiredScopes,
    stepUp: resolveStepUp(options),
    claims: Object.freeze(claimChecks(options.claims)),
    jwks,
    cache,
    fetch: fetchImpl,
    allowInsecureHttp,
    maxTokenLength,
    realm,
    resourceMetadata,
    tokenSources,
    dpop: resolveDpopOptions(options.dpop),
    mtls: resolveMtlsOptions(options.mtls),
    introspection,
    onWarning: warningHandler(options.onWarning),
    telemetry: resolveTelemetryOptions(options.telemetry),
  });
}
