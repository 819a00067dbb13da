/**
 * The option names `createIssuer()` knows, as a tree, and the check that refuses any other name at any
 * level with a `ConfigError` that names it and suggests the closest known one ("did you mean …?"). The
 * CLI's config file uses the same tree, minus the options only code can pass.
 *
 * @module
 */
import { ConfigError } from '../errors.js';
import { didYouMean } from '../internal/suggest.js';

/**
 * A level of the option tree: each name maps to `true` (a value) or to the names under it.
 *
 * @example
 * ```ts
 * const tree: OptionTree = { port: true, keys: { algorithm: true } };
 * ```
 */
export interface OptionTree {
  readonly [name: string]: true | OptionTree;
}

const leaves = (...names: string[]): OptionTree =>
  Object.freeze(Object.fromEntries(names.map((name): [string, true] => [name, true])));

/**
 * Every option of `IssuerConfig`. `customJwtClaims.environmentVariables` and `cookieKeys` are values
 * (their keys or items are data, not options).
 *
 * @example
 * ```ts
 * Object.keys(OPTION_TREE.keys as OptionTree); // ['algorithm', 'rsaModulusLength', 'gracePeriod', 'reloadInterval']
 * ```
 */
export const OPTION_TREE: OptionTree = Object.freeze({
  baseUrl: true,
  port: true,
  host: true,
  dataDir: true,
  database: true,
  postgres: leaves('poolSize', 'connectionTimeout', 'idleTimeout'),
  store: true,
  trustProxy: true,
  proxy: leaves('hops', 'addresses'),
  accessTokenFormat: true,
  signIn: leaves(
    'maxFailuresPerAccountAndAddress',
    // Known only to be refused with the name of its successor (resolveProtection), like trustProxy.
    'maxFailures',
    'maxFailuresPerAddress',
    'failureWindow',
    'lockDuration',
    'delayAfter',
    'delayAfterPerAddress',
    'delay',
    'maxDelay',
    'concurrentHashes',
    'queuedHashes',
  ),
  rateLimits: leaves('window', 'managementPerClient', 'tokenPerClient', 'tokenPerAddress', 'syncInterval'),
  log: leaves('level', 'destination', 'logger'),
  keys: leaves('algorithm', 'rsaModulusLength', 'gracePeriod', 'reloadInterval'),
  ttl: leaves(
    'accessToken',
    'authorizationCode',
    'idToken',
    'refreshToken',
    'session',
    'grant',
    'interaction',
  ),
  http: leaves('maxBodyBytes', 'maxJsonDepth'),
  passwords: leaves('scryptCost', 'minLength'),
  admin: leaves('clientId', 'clientSecret'),
  subjectTokens: leaves('ttl'),
  tokenExchange: leaves('maxFailures', 'failureWindow'),
  dpop: leaves('requireNonce'),
  console: leaves('enabled', 'reauthenticateAfter'),
  webhooks: leaves('allowedPrivateTargets', 'disableAfter', 'secretOverlap', 'concurrency'),
  shutdown: leaves('drainDelay', 'drainTimeout'),
  telemetry: leaves(
    'metrics',
    'traces',
    'otlpEndpoint',
    'exportInterval',
    'serviceName',
    'prometheus',
    'prometheusPort',
    'prometheusHost',
    'prometheusToken',
    'meterProvider',
  ),
  customJwtClaims: leaves(
    'module',
    'environmentVariables',
    'timeout',
    'memoryLimit',
    'maxResultBytes',
    'onError',
    'workers',
  ),
  cookieKeys: true,
});

/**
 * Options only code can pass (a driver, a stream, a logger): not settings of the CLI's config file.
 *
 * @example
 * ```ts
 * EMBEDDING_ONLY.includes('store'); // true
 * ```
 */
export const EMBEDDING_ONLY: readonly string[] = Object.freeze([
  'store',
  'log.destination',
  'log.logger',
  'telemetry.meterProvider',
]);

/**
 * `tree` without the dotted paths in `drop`.
 *
 * @example
 * ```ts
 * const fileSettings = withoutPaths(OPTION_TREE, EMBEDDING_ONLY);
 * ```
 */
export function withoutPaths(tree: OptionTree, drop: readonly string[], prefix = ''): OptionTree {
  const kept: Record<string, true | OptionTree> = {};
  for (const [name, node] of Object.entries(tree)) {
    const path = `${prefix}${name}`;
    if (drop.includes(path)) continue;
    kept[name] = node === true ? true : withoutPaths(node, drop, `${path}.`);
  }
  return Object.freeze(kept);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Throw a `ConfigError` for the first name in `value` (at any level) that `tree` does not know, e.g.
 * `"baseURL" is not a known option — did you mean "baseUrl"?`. Values that are not objects
 * (wrong types) are left to the validation of their option.
 *
 * @param what - How the message calls a name: `option` (code) or `setting` (config file).
 * @param where - Appended to the message, e.g. ` (in ./gatehouse-issuer.json)`.
 *
 * @example
 * ```ts
 * checkOptionNames({ baseURL: 'http://localhost:3001' }, OPTION_TREE);
 * // ConfigError: "baseURL" is not a known option — did you mean "baseUrl"?
 * ```
 */
export function checkOptionNames(
  value: Record<string, unknown>,
  tree: OptionTree,
  what = 'option',
  where = '',
  prefix = '',
): void {
  for (const [name, child] of Object.entries(value)) {
    const node = Object.hasOwn(tree, name) ? tree[name] : undefined;
    const path = `${prefix}${name}`;
    if (node === undefined) {
      const hint = didYouMean(name, Object.keys(tree), (known) => `${prefix}${known}`);
      throw new ConfigError(path, `is not a known ${what}${hint}${where}`);
    }
    if (node !== true && isObject(child)) checkOptionNames(child, node, what, where, `${path}.`);
  }
}
