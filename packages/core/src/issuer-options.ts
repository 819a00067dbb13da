/**
 * The `issuer` option in its three forms, validated when the verifier is created:
 *
 * - a string: one issuer;
 * - a list of issuers, each a string or an {@link IssuerOptions} object with what differs for its
 *   tokens (`jwksUri`, `audience`, `algorithms`). Each issuer has its own key set (discovered from its
 *   own metadata, or its own `jwksUri`); a top-level `jwksUri` is shared by the issuers that name none;
 * - a function, {@link IssuerResolver}, asked whether to trust an issuer it has not answered for yet
 *   (tenants of a multi-tenant identity service). Answers and key sets are held in bounded caches
 *   (`issuerCache`, see {@link DEFAULTS}.issuerCache).
 *
 * @module
 */
import { DEFAULTS } from './defaults.js';
import { fail } from './internal/fail.js';
import { rejectUnknownKeys } from './internal/known-keys.js';
import { algorithmList, duration, parseUrl, stringList } from './internal/option-values.js';
import type { Algorithm } from './types.js';

/**
 * One trusted issuer, and what differs for its tokens. Omitted members take the top-level option.
 *
 * @example
 * ```ts
 * const legacy: IssuerOptions = {
 *   issuer: 'https://old-id.example.com',
 *   jwksUri: 'https://old-id.example.com/keys',
 *   audience: 'orders-api',
 *   algorithms: ['RS256'],
 * };
 * ```
 */
export interface IssuerOptions {
  /** The issuer identifier, compared exactly with the tokens' `iss`. */
  issuer: string;
  /** This issuer's JWKS URL. Default: the top-level `jwksUri`, else discovered from its metadata. */
  jwksUri?: string | URL;
  /** Accepted audience(s) for this issuer's tokens. Default: the top-level `audience`. */
  audience?: string | readonly string[];
  /** Accepted algorithms for this issuer's tokens. Default: the top-level `algorithms`. */
  algorithms?: readonly Algorithm[];
}

/**
 * Decides whether to trust an issuer (tenants): called with a token's unverified `iss`, which is a
 * well-formed `https:` URL (`http:` on loopback). Its answer is cached for `issuerCache.maxAge`; a
 * trusted issuer's keys are then discovered from its metadata. Throwing, rejecting, answering
 * anything but a boolean or taking longer than `issuerCache.timeout` answers that request 503.
 *
 * @example
 * ```ts
 * const issuer: IssuerResolver = (iss) => /^https:\/\/[a-z0-9-]+\.id\.example\.com\/$/.test(iss);
 * ```
 */
export type IssuerResolver = (iss: string) => boolean | Promise<boolean>;

/** Bounds of the caches behind an {@link IssuerResolver}. */
export interface IssuerCacheOptions {
  /** Most key sets (trusted issuers) held, least recently used dropped first. Default 100. */
  max?: number;
  /** Most resolver answers held. Default 1000. */
  answers?: number;
  /** Milliseconds a resolver answer is reused. Default 600000 (10 min). */
  maxAge?: number;
  /** Milliseconds a resolver may take before the request is answered 503. Default 5000. */
  timeout?: number;
}

/** One issuer after validation: what its tokens are checked against. */
export interface ResolvedIssuer {
  readonly issuer: string;
  /** Its own or the shared JWKS URL; `undefined`: discovered. */
  readonly jwksUri: URL | undefined;
  readonly audiences: readonly string[];
  readonly algorithms: ReadonlySet<Algorithm>;
}

/** The `issuer` and `issuerCache` options after validation. */
export interface ResolvedIssuers {
  /** The issuer identifiers of a string or list; empty with a resolver. */
  readonly issuers: readonly string[];
  /** One entry per configured issuer; empty with a resolver. */
  readonly issuerList: readonly ResolvedIssuer[];
  readonly issuerResolver: IssuerResolver | undefined;
  readonly issuerCache: Readonly<Required<IssuerCacheOptions>>;
}

const ISSUER_KEYS = Object.keys({
  issuer: 1,
  jwksUri: 1,
  audience: 1,
  algorithms: 1,
} satisfies Record<keyof IssuerOptions, 1>);

/** What an issuer falls back to. */
interface IssuerDefaults {
  readonly jwksUri: URL | undefined;
  readonly audiences: readonly string[];
  readonly algorithms: readonly Algorithm[];
  readonly allowInsecureHttp: boolean;
}

function resolveOne(value: unknown, at: string, defaults: IssuerDefaults): ResolvedIssuer {
  const config: IssuerOptions =
    typeof value === 'string'
      ? { issuer: value }
      : value !== null && typeof value === 'object'
        ? (value as IssuerOptions)
        : fail(at, 'must be an issuer URL or an object { issuer, jwksUri?, audience?, algorithms? }');
  rejectUnknownKeys(config, ISSUER_KEYS, `${at}.`);
  const issuer = stringList(config.issuer, typeof value === 'string' ? at : `${at}.issuer`);
  if (issuer.length !== 1) fail(`${at}.issuer`, 'must be one issuer URL');
  const own =
    config.jwksUri === undefined
      ? undefined
      : parseUrl(config.jwksUri, `${at}.jwksUri`, defaults.allowInsecureHttp);
  const jwksUri = own ?? defaults.jwksUri;
  // An issuer whose keys are discovered needs an issuer URL its metadata can be fetched from.
  if (jwksUri === undefined)
    parseUrl(issuer[0], typeof value === 'string' ? at : `${at}.issuer`, defaults.allowInsecureHttp);
  return Object.freeze({
    issuer: issuer[0]!,
    jwksUri,
    audiences:
      config.audience === undefined
        ? defaults.audiences
        : Object.freeze(stringList(config.audience, `${at}.audience`)),
    algorithms: new Set(algorithmList(config.algorithms, defaults.algorithms, `${at}.algorithms`)),
  });
}

/**
 * Validate `issuer` and `issuerCache`. Throws a `TypeError` naming the option.
 *
 * @example
 * ```ts
 * const { issuerList } = resolveIssuers(['https://a.example.com', { issuer: 'https://b.example.com', audience: 'b-api' }], undefined, defaults);
 * ```
 */
export function resolveIssuers(
  value: unknown,
  cacheOptions: unknown,
  defaults: IssuerDefaults,
): ResolvedIssuers {
  const c = cacheOptions ?? {};
  if (c === null || typeof c !== 'object') fail('issuerCache', 'must be an object');
  rejectUnknownKeys(c as object, Object.keys(DEFAULTS.issuerCache), 'issuerCache.');
  const d = DEFAULTS.issuerCache;
  const given = c as IssuerCacheOptions;
  const issuerCache = Object.freeze({
    max: duration(given.max, d.max, 'issuerCache.max', 1),
    answers: duration(given.answers, d.answers, 'issuerCache.answers', 1),
    maxAge: duration(given.maxAge, d.maxAge, 'issuerCache.maxAge', 1),
    timeout: duration(given.timeout, d.timeout, 'issuerCache.timeout', 1),
  });
  for (const name of ['max', 'answers'] as const)
    if (!Number.isInteger(issuerCache[name])) fail(`issuerCache.${name}`, 'must be an integer');

  if (typeof value === 'function') {
    return Object.freeze({
      issuers: Object.freeze([]),
      issuerList: Object.freeze([]),
      issuerResolver: value as IssuerResolver,
      issuerCache,
    });
  }
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items) || items.length === 0)
    fail('issuer', 'must be an issuer URL, a non-empty array of issuers, or a function (iss) => boolean');
  // A plain string named twice is the same issuer; an issuer configured twice with overrides is ambiguous.
  const list: ResolvedIssuer[] = [];
  (items as unknown[]).forEach((item, i) => {
    const entry = resolveOne(item, typeof value === 'string' ? 'issuer' : `issuer[${i}]`, defaults);
    const twice = list.find((other) => other.issuer === entry.issuer);
    if (twice === undefined) list.push(entry);
    else if (typeof item !== 'string') fail(`issuer[${i}]`, `names "${entry.issuer}" a second time`);
  });
  return Object.freeze({
    issuers: Object.freeze(list.map((entry) => entry.issuer)),
    issuerList: Object.freeze(list),
    issuerResolver: undefined,
    issuerCache,
  });
}
