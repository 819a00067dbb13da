/**
 * {@link resolveConfig}: the only place {@link IssuerConfig} (what users write, `types.ts`) is merged
 * with `DEFAULTS` and validated. A bad setting, or a name that is no setting, throws a `ConfigError`
 * naming it, before anything starts.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import type { Store } from '../storage/store.js';
import { resolveConsoleConfig } from './console.js';
import {
  ACCESS_TOKEN_FORMATS,
  CUSTOM_CLAIMS_ON_ERROR,
  DEFAULTS,
  LOG_LEVELS,
  MAX_SUBJECT_TOKEN_TTL,
  SIGNING_ALGORITHMS,
} from './defaults.js';
import { resolveDpopConfig } from './dpop.js';
import { checkOptionNames, OPTION_TREE } from './keys.js';
import { resolveProtection } from './protection.js';
import type { CustomJwtClaimsConfig, IssuerConfig, ResolvedConfig } from './types.js';

export type {
  AdminConfig,
  CustomJwtClaimsConfig,
  HttpConfig,
  IssuerConfig,
  KeyConfig,
  LogConfig,
  PasswordConfig,
  PostgresConfig,
  ResolvedConfig,
  SubjectTokenConfig,
  TokenExchangeConfig,
  TtlConfig,
} from './types.js';

const fail = (option: string, must: string): never => {
  throw new ConfigError(option, must);
};

function object<T>(value: T | undefined, option: string): Partial<T> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail(option, 'must be an object');
  return value;
}

function integer(
  value: unknown,
  fallback: number,
  option: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return fail(option, `must be an integer between ${min} and ${max}`);
  }
  return value;
}

function text(value: unknown, option: string): string {
  if (typeof value !== 'string' || value.length === 0) return fail(option, 'must be a non-empty string');
  return value;
}

function oneOf<T extends string>(value: unknown, fallback: T, allowed: readonly T[], option: string): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) return fail(option, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

function parseBaseUrl(value: unknown): URL {
  if (value === undefined) return fail('baseUrl', 'is required (e.g. http://localhost:3001)');
  let url: URL;
  try {
    url = new URL(text(value, 'baseUrl'));
  } catch {
    return fail('baseUrl', 'must be an absolute http(s) URL, e.g. http://localhost:3001');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail('baseUrl', 'must use http: or https:');
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    fail('baseUrl', 'must not contain a query, a fragment or credentials');
  }
  return url;
}

function isStore(value: unknown): value is Store {
  const store = value as Store;
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof store.migrate === 'function' &&
    typeof store.users === 'object' &&
    typeof store.payloads === 'object'
  );
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function resolveCustomClaims(value: CustomJwtClaimsConfig): Readonly<Required<CustomJwtClaimsConfig>> {
  const c = object(value, 'customJwtClaims');
  const path = resolve(text(c.module, 'customJwtClaims.module'));
  if (!existsSync(path))
    fail('customJwtClaims.module', `must name an existing file (${path} does not exist)`);
  const env = object(c.environmentVariables, 'customJwtClaims.environmentVariables');
  const environmentVariables: Record<string, string> = {};
  for (const [name, entry] of Object.entries(env)) {
    if (!ENV_NAME.test(name) || typeof entry !== 'string') {
      fail('customJwtClaims.environmentVariables', 'must map variable names to strings');
    }
    environmentVariables[name] = entry as string;
  }
  const d = DEFAULTS.customJwtClaims;
  return Object.freeze({
    module: path,
    environmentVariables: Object.freeze(environmentVariables),
    timeout: integer(c.timeout, d.timeout, 'customJwtClaims.timeout', 100, 60_000),
    memoryLimit: integer(c.memoryLimit, d.memoryLimit, 'customJwtClaims.memoryLimit', 16, 4_096),
    maxResultBytes: integer(
      c.maxResultBytes,
      d.maxResultBytes,
      'customJwtClaims.maxResultBytes',
      1_024,
      1_048_576,
    ),
    onError: oneOf(c.onError, d.onError, CUSTOM_CLAIMS_ON_ERROR, 'customJwtClaims.onError'),
    workers: integer(c.workers, d.workers, 'customJwtClaims.workers', 1, 16),
  });
}

/**
 * Merge `config` with {@link DEFAULTS} and validate it. Throws a `ConfigError` naming the first bad
 * setting, or the first name (at any level) that is not a setting, with the closest known one.
 *
 * @example
 * ```ts
 * import { resolveConfig } from '@gatehouse/issuer';
 * resolveConfig({ baseUrl: 'http://localhost:3001', keys: { gracePeriod: -1 } });
 * // ConfigError: "keys.gracePeriod" must be an integer between 0 and …
 * resolveConfig({ baseURL: 'http://localhost:3001' });
 * // ConfigError: "baseURL" is not a known option — did you mean "baseUrl"?
 * ```
 */
export function resolveConfig(config: IssuerConfig): ResolvedConfig {
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new ConfigError('config', 'must be an object');
  checkOptionNames(config as unknown as Record<string, unknown>, OPTION_TREE);
  const port = integer(config.port, DEFAULTS.port, 'port', 0, 65_535);
  const url = parseBaseUrl(config.baseUrl);
  const baseUrl = url.href.replace(/\/+$/, '');
  const basePath = url.pathname.replace(/\/+$/, '');

  const host = config.host === undefined ? DEFAULTS.host : text(config.host, 'host');
  const dataDir = config.dataDir === undefined ? DEFAULTS.dataDir : text(config.dataDir, 'dataDir');
  const database =
    config.database === undefined ? join(dataDir, DEFAULTS.databaseFile) : text(config.database, 'database');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(database)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'postgres' && scheme !== 'postgresql')
    fail('database', 'must be a SQLite file path, ":memory:" or a postgres:// (postgresql://) URL');
  if (scheme !== undefined) {
    try {
      new URL(database);
    } catch {
      fail('database', 'must be a valid URL, e.g. postgres://user:password@host:5432/gatehouse');
    }
  }
  const pgConfig = object(config.postgres, 'postgres');
  const postgres = Object.freeze({
    poolSize: integer(pgConfig.poolSize, DEFAULTS.postgres.poolSize, 'postgres.poolSize', 2, 1_000),
    connectionTimeout: integer(
      pgConfig.connectionTimeout,
      DEFAULTS.postgres.connectionTimeout,
      'postgres.connectionTimeout',
      100,
      600_000,
    ),
    idleTimeout: integer(
      pgConfig.idleTimeout,
      DEFAULTS.postgres.idleTimeout,
      'postgres.idleTimeout',
      1_000,
      3_600_000,
    ),
  });
  if (config.store !== undefined && !isStore(config.store))
    fail('store', 'must implement the Store interface');

  const log = object(config.log, 'log');
  const level = oneOf(log.level, DEFAULTS.log.level, LOG_LEVELS, 'log.level');
  if (log.destination !== undefined && typeof (log.destination as { write?: unknown }).write !== 'function') {
    fail('log.destination', 'must be a writable stream');
  }
  if (log.logger !== undefined && typeof (log.logger as { child?: unknown }).child !== 'function') {
    fail('log.logger', 'must be a pino logger');
  }

  const k = object(config.keys, 'keys');
  const keys = Object.freeze({
    algorithm: oneOf(k.algorithm, DEFAULTS.keys.algorithm, SIGNING_ALGORITHMS, 'keys.algorithm'),
    rsaModulusLength: integer(
      k.rsaModulusLength,
      DEFAULTS.keys.rsaModulusLength,
      'keys.rsaModulusLength',
      2048,
      4096,
    ),
    gracePeriod: integer(k.gracePeriod, DEFAULTS.keys.gracePeriod, 'keys.gracePeriod', 0),
    reloadInterval: integer(k.reloadInterval, DEFAULTS.keys.reloadInterval, 'keys.reloadInterval', 0, 86_400),
  });

  const t = object(config.ttl, 'ttl');
  const d = DEFAULTS.ttl;
  const ttl = Object.freeze({
    accessToken: integer(t.accessToken, d.accessToken, 'ttl.accessToken', 1, 86_400),
    authorizationCode: integer(t.authorizationCode, d.authorizationCode, 'ttl.authorizationCode', 1, 600),
    idToken: integer(t.idToken, d.idToken, 'ttl.idToken', 1, 86_400),
    refreshToken: integer(t.refreshToken, d.refreshToken, 'ttl.refreshToken', 1),
    session: integer(t.session, d.session, 'ttl.session', 1),
    grant: integer(t.grant, d.grant, 'ttl.grant', 1),
    interaction: integer(t.interaction, d.interaction, 'ttl.interaction', 1, 86_400),
  });

  const h = object(config.http, 'http');
  const http = Object.freeze({
    maxBodyBytes: integer(h.maxBodyBytes, DEFAULTS.http.maxBodyBytes, 'http.maxBodyBytes', 1_024, 1_048_576),
    maxJsonDepth: integer(h.maxJsonDepth, DEFAULTS.http.maxJsonDepth, 'http.maxJsonDepth', 2, 256),
  });

  const p = object(config.passwords, 'passwords');
  const scryptCost = integer(
    p.scryptCost,
    DEFAULTS.passwords.scryptCost,
    'passwords.scryptCost',
    1_024,
    1_048_576,
  );
  if ((scryptCost & (scryptCost - 1)) !== 0) fail('passwords.scryptCost', 'must be a power of two');
  const passwords = Object.freeze({
    scryptCost,
    minLength: integer(p.minLength, DEFAULTS.passwords.minLength, 'passwords.minLength', 1, 1_024),
  });

  const a = object(config.admin, 'admin');
  if (a.clientId !== undefined && !/^[A-Za-z0-9._~-]{3,128}$/.test(text(a.clientId, 'admin.clientId'))) {
    fail('admin.clientId', 'must be 3–128 characters of A-Z, a-z, 0-9, ".", "_", "~" or "-"');
  }
  if (a.clientId?.startsWith('usr_'))
    fail('admin.clientId', 'must not start with "usr_" (reserved for user ids)');
  if (a.clientSecret !== undefined && text(a.clientSecret, 'admin.clientSecret').length < 32) {
    fail('admin.clientSecret', 'must be at least 32 characters');
  }
  if ((a.clientId === undefined) !== (a.clientSecret === undefined)) {
    fail(
      a.clientId === undefined ? 'admin.clientId' : 'admin.clientSecret',
      'must be set together with the other admin credential',
    );
  }

  const st = object(config.subjectTokens, 'subjectTokens');
  const subjectTokens = Object.freeze({
    ttl: integer(st.ttl, DEFAULTS.subjectTokens.ttl, 'subjectTokens.ttl', 10, MAX_SUBJECT_TOKEN_TTL),
  });
  const te = object(config.tokenExchange, 'tokenExchange');
  const tokenExchange = Object.freeze({
    maxFailures: integer(
      te.maxFailures,
      DEFAULTS.tokenExchange.maxFailures,
      'tokenExchange.maxFailures',
      1,
      10_000,
    ),
    failureWindow: integer(
      te.failureWindow,
      DEFAULTS.tokenExchange.failureWindow,
      'tokenExchange.failureWindow',
      1,
      86_400,
    ),
  });
  const customJwtClaims =
    config.customJwtClaims === undefined ? undefined : resolveCustomClaims(config.customJwtClaims);

  const protection = resolveProtection(config);

  let cookieKeys: readonly string[] | undefined;
  if (config.cookieKeys !== undefined) {
    if (!Array.isArray(config.cookieKeys) || config.cookieKeys.length === 0)
      fail('cookieKeys', 'must be a non-empty array');
    for (const key of config.cookieKeys) {
      if (typeof key !== 'string' || key.length < 32)
        fail('cookieKeys', 'must contain strings of at least 32 characters');
    }
    cookieKeys = Object.freeze([...config.cookieKeys]);
  }

  return Object.freeze({
    baseUrl,
    basePath,
    issuer: `${baseUrl}/oidc`,
    managementAudience: `${baseUrl}/api`,
    port,
    host,
    database,
    postgres,
    store: config.store,
    ...protection,
    trustProxy: protection.proxy.hops > 0 || protection.proxy.addresses.length > 0,
    accessTokenFormat: oneOf(
      config.accessTokenFormat,
      DEFAULTS.accessTokenFormat,
      ACCESS_TOKEN_FORMATS,
      'accessTokenFormat',
    ),
    log: Object.freeze({ level, destination: log.destination, logger: log.logger }),
    keys,
    ttl,
    http,
    passwords,
    admin: Object.freeze({ clientId: a.clientId, clientSecret: a.clientSecret }),
    subjectTokens,
    tokenExchange,
    customJwtClaims,
    cookieKeys,
    dpop: resolveDpopConfig(config.dpop),
    console: resolveConsoleConfig(config.console),
  });
}
