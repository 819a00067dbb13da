/**
 * Client options, the package's one frozen {@link DEFAULTS} object, and {@link resolveOptions}, the
 * only place where options and defaults are merged and validated. A bad option throws a `TypeError`
 * naming it when `createClient()` runs, never later.
 *
 * @module
 */
import { isBrowser, pageSessionStorage } from './internal/env.js';
import { type InsecurePolicy, isLoopback } from './internal/url.js';
import { type ClientStorage, createMemoryStorage, isClientStorage, type StorageOption } from './storage.js';

/**
 * Default values of every option. Times are milliseconds except `expiryLeeway`, which is compared
 * with token lifetimes and is in seconds like them.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from '@gatehouse/client';
 * DEFAULTS.timeout; // 10000
 * ```
 */
export const DEFAULTS = Object.freeze({
  /** Keep the pending sign-in and the session in the client's memory only. */
  storage: 'memory' as const,
  /**
   * Scopes every sign-in asks for besides the configured ones: `openid` (an ID token, so the client
   * knows who signed in) and `offline_access` (a refresh token, which is how one token per resource is
   * obtained after sign-in).
   */
  baseScopes: Object.freeze(['openid', 'offline_access'] as const),
  /**
   * `prompt` of the authentication request. OpenID Connect ignores `offline_access` unless the request
   * carries `prompt=consent`; Gatehouse shows no consent page to first-party applications.
   */
  prompt: 'consent',
  /** Plain `http:` is refused: `true` allows it for loopback hosts, `'force'` for every host. */
  allowInsecureRequests: false,
  /** Abort a request to the issuer after this many ms (10 s). */
  timeout: 10_000,
  /**
   * Seconds before its stated expiry at which a cached access token counts as expired, so a token is
   * not handed out just before it stops working (clock skew, request time). At most 300.
   */
  expiryLeeway: 30,
  /** Path of the OpenID issuer under a Gatehouse base URL (the `endpoint` option). */
  issuerPath: '/oidc',
  /** First part of every storage key: `gatehouse:{clientId}:{record}`. */
  storageKeyPrefix: 'gatehouse',
});

/**
 * Largest `expiryLeeway`, in seconds.
 *
 * @example
 * ```ts
 * createClient({ ...options, expiryLeeway: MAX_EXPIRY_LEEWAY });
 * ```
 */
export const MAX_EXPIRY_LEEWAY = 300;

/**
 * A `fetch` implementation (the global one by default).
 *
 * @example
 * ```ts
 * const logged: FetchLike = (url, init) => { console.debug(init.method, new URL(url).pathname); return fetch(url, init); };
 * ```
 */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * Options of `createClient()`.
 *
 * @example
 * ```ts
 * const options: ClientOptions = {
 *   endpoint: 'https://id.example.com',
 *   clientId: 'support-console',
 *   redirectUri: 'https://console.example.com/callback',
 *   resources: ['https://orders.example.com', 'https://billing.example.com'],
 *   scopes: ['read:orders', 'read:billing'],
 *   storage: 'sessionStorage',
 * };
 * ```
 */
export interface ClientOptions {
  /** The OpenID issuer identifier, e.g. `https://id.example.com/oidc`. Give this or `endpoint`. */
  readonly issuer?: string | URL;
  /** A Gatehouse issuer's base URL, e.g. `https://id.example.com`; the issuer is `{endpoint}/oidc`. */
  readonly endpoint?: string | URL;
  /** The application's client id. */
  readonly clientId: string;
  /**
   * A confidential (`Traditional`) application's secret, sent with HTTP Basic. Only for code that
   * runs on a server or a trusted machine: it is refused in a browser page. Default: none (a public
   * client: SPA or Native).
   */
  readonly clientSecret?: string;
  /** Where the issuer sends the browser after sign-in; registered with the application. */
  readonly redirectUri: string | URL;
  /** Where the issuer sends the browser after sign-out; registered with the application. Default: none. */
  readonly postLogoutRedirectUri?: string | URL;
  /** Resource indicators (RFC 8707) of every API the client calls: absolute URLs without fragment. */
  readonly resources: readonly string[];
  /** API scopes to ask for at sign-in (`openid` and `offline_access` are always added). */
  readonly scopes: readonly string[];
  /** Where the pending sign-in and the session are kept. Default: `'memory'`. See `ClientStorage`. */
  readonly storage?: StorageOption;
  /**
   * Allow plain `http:` to the issuer: `true` only for loopback hosts (`localhost`, `127.0.0.0/8`,
   * `[::1]`), as in local development and tests; `'force'` for any host (never do this in
   * production). Default: `false`, `https:` only.
   */
  readonly allowInsecureRequests?: boolean | 'force';
  /** Abort a request to the issuer after this many ms. Default: 10000. */
  readonly timeout?: number;
  /** Seconds before expiry at which a cached access token is renewed. Default: 30, at most 300. */
  readonly expiryLeeway?: number;
  /** A `fetch` to send requests with (proxies, instrumentation). Default: the global `fetch`. */
  readonly fetch?: FetchLike;
}

/**
 * Options after validation and defaults (what {@link resolveOptions} returns).
 *
 * @example
 * ```ts
 * const { issuer, scope } = resolveOptions(options); // issuer: URL; scope: 'openid offline_access read:orders'
 * ```
 */
export interface ResolvedOptions {
  readonly issuer: URL;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string | undefined;
  readonly resources: readonly string[];
  readonly scopes: readonly string[];
  /** The `scope` parameter of the authentication request. */
  readonly scope: string;
  readonly storage: ClientStorage;
  /** Which kind of store `storage` is. */
  readonly storageKind: 'memory' | 'sessionStorage' | 'custom';
  readonly insecure: InsecurePolicy;
  readonly timeout: number;
  readonly expiryLeeway: number;
  readonly fetch: FetchLike | undefined;
  /** Storage key prefix, `gatehouse:{clientId}:`. */
  readonly keyPrefix: string;
}

function fail(option: string, problem: string): never {
  throw new TypeError(`"${option}" option ${problem}`);
}

function parseUrl(value: unknown, option: string): URL {
  if (!(value instanceof URL) && typeof value !== 'string') fail(option, 'must be a string or a URL');
  let url: URL;
  try {
    url = new URL(value instanceof URL ? value.href : value);
  } catch {
    return fail(option, 'must be an absolute URL');
  }
  if (url.hash !== '' || (typeof value === 'string' && value.includes('#')))
    fail(option, 'must not have a fragment');
  return url;
}

function parseIssuer(options: ClientOptions, insecure: InsecurePolicy): URL {
  const hasIssuer = options.issuer !== undefined;
  const hasEndpoint = options.endpoint !== undefined;
  if (hasIssuer === hasEndpoint) {
    fail(hasIssuer ? 'issuer' : 'endpoint', hasIssuer ? 'cannot be combined with "endpoint"' : 'is required');
  }
  const option = hasIssuer ? 'issuer' : 'endpoint';
  const url = parseUrl(hasIssuer ? options.issuer : options.endpoint, option);
  if (url.search !== '') fail(option, 'must not have a query');
  if (url.protocol === 'http:') {
    if (insecure === 'never') {
      fail(option, 'must use https: (set "allowInsecureRequests" to allow http: for a loopback issuer)');
    }
    if (insecure === 'loopback' && !isLoopback(url)) {
      fail(option, 'must use https: ("allowInsecureRequests": true only allows http: for loopback hosts)');
    }
  } else if (url.protocol !== 'https:') fail(option, 'must use https: or http:');
  if (hasEndpoint) {
    return new URL(`${url.href.replace(/\/+$/, '')}${DEFAULTS.issuerPath}`);
  }
  return url;
}

function parseInsecure(value: unknown): InsecurePolicy {
  const setting = value ?? DEFAULTS.allowInsecureRequests;
  if (setting === false) return 'never';
  if (setting === true) return 'loopback';
  if (setting === 'force') return 'always';
  return fail('allowInsecureRequests', "must be true, false or 'force'");
}

function parseResources(value: unknown): readonly string[] {
  if (!Array.isArray(value)) fail('resources', 'must be an array of resource indicators');
  const out: string[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'string') fail(`resources[${index}]`, 'must be a string');
    const url = parseUrl(item, `resources[${index}]`);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      fail(`resources[${index}]`, 'must be an http(s) URL');
    if (out.includes(item)) fail(`resources[${index}]`, 'is listed twice');
    out.push(item);
  }
  return Object.freeze(out);
}

/** RFC 6749 §3.3 scope-token: printable ASCII except space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function parseScopes(value: unknown): readonly string[] {
  if (!Array.isArray(value)) fail('scopes', 'must be an array of scope names');
  const out: string[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'string' || !SCOPE_TOKEN.test(item)) {
      fail(`scopes[${index}]`, 'must be a scope name (printable ASCII, no spaces or quotes)');
    }
    if (!out.includes(item)) out.push(item);
  }
  return Object.freeze(out);
}

function parseStorage(value: unknown): ClientStorage {
  const setting = value ?? DEFAULTS.storage;
  if (setting === 'memory') return createMemoryStorage();
  if (setting === 'sessionStorage') {
    const storage = pageSessionStorage();
    if (!isClientStorage(storage))
      fail('storage', "is 'sessionStorage' but no sessionStorage is available here");
    return storage;
  }
  if (isClientStorage(setting)) return setting;
  return fail(
    'storage',
    "must be 'memory', 'sessionStorage' or an object with getItem, setItem and removeItem",
  );
}

function parseInteger(value: unknown, option: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(option, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

/**
 * Validate `options` and merge them with {@link DEFAULTS}.
 *
 * @throws TypeError naming the first bad option.
 * @example
 * ```ts
 * const resolved = resolveOptions({ endpoint: 'http://127.0.0.1:3001', allowInsecureRequests: true, clientId: 'spa',
 *   redirectUri: 'http://127.0.0.1:8080/callback', resources: ['https://orders.example.com'], scopes: ['read:orders'] });
 * resolved.issuer.href; // 'http://127.0.0.1:3001/oidc'
 * ```
 */
export function resolveOptions(options: ClientOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  const insecure = parseInsecure(options.allowInsecureRequests);
  const issuer = parseIssuer(options, insecure);
  if (typeof options.clientId !== 'string' || options.clientId.length === 0) {
    fail('clientId', 'must be a non-empty string');
  }
  let clientSecret: string | undefined;
  if (options.clientSecret !== undefined) {
    if (typeof options.clientSecret !== 'string' || options.clientSecret.length === 0) {
      fail('clientSecret', 'must be a non-empty string');
    }
    if (isBrowser()) fail('clientSecret', 'must not be used in a browser page: a page cannot keep a secret');
    clientSecret = options.clientSecret;
  }
  const redirectUri = parseUrl(options.redirectUri, 'redirectUri').href;
  const postLogoutRedirectUri =
    options.postLogoutRedirectUri === undefined
      ? undefined
      : parseUrl(options.postLogoutRedirectUri, 'postLogoutRedirectUri').href;
  const resources = parseResources(options.resources);
  const scopes = parseScopes(options.scopes);
  const scope = [...new Set<string>([...DEFAULTS.baseScopes, ...scopes])].join(' ');
  const storage = parseStorage(options.storage);
  const storageKind =
    options.storage === undefined || options.storage === 'memory'
      ? 'memory'
      : options.storage === 'sessionStorage'
        ? 'sessionStorage'
        : 'custom';
  const timeout = parseInteger(options.timeout, 'timeout', DEFAULTS.timeout, 1, 600_000);
  const expiryLeeway = parseInteger(
    options.expiryLeeway,
    'expiryLeeway',
    DEFAULTS.expiryLeeway,
    0,
    MAX_EXPIRY_LEEWAY,
  );
  if (options.fetch !== undefined && typeof options.fetch !== 'function') fail('fetch', 'must be a function');
  return Object.freeze({
    issuer,
    clientId: options.clientId,
    clientSecret,
    redirectUri,
    postLogoutRedirectUri,
    resources,
    scopes,
    scope,
    storage,
    storageKind,
    insecure,
    timeout,
    expiryLeeway,
    fetch: options.fetch,
    keyPrefix: `${DEFAULTS.storageKeyPrefix}:${options.clientId}:`,
  });
}
