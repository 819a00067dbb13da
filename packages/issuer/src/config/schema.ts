/**
 * {@link IssuerConfig} (what users write) and {@link resolveConfig} (the only place it is merged with
 * `DEFAULTS` and validated). A bad setting throws a `ConfigError` naming it, before anything starts.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DestinationStream, Logger } from 'pino';
import { ConfigError } from '../errors.js';
import type { Store } from '../storage/store.js';
import {
  CUSTOM_CLAIMS_ON_ERROR,
  type CustomClaimsOnError,
  DEFAULTS,
  LOG_LEVELS,
  type LogLevel,
  MAX_SUBJECT_TOKEN_TTL,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
} from './defaults.js';
import { type DpopConfig, type ResolvedDpopConfig, resolveDpopConfig } from './dpop.js';

/** Signing-key settings. */
export interface KeyConfig {
  /** Algorithm of generated keys. Default `RS256`. */
  algorithm?: SigningAlgorithm;
  /** RSA modulus length in bits (2048–4096). Default 2048. */
  rsaModulusLength?: number;
  /** Seconds a rotated-out key stays published. Default 86400. */
  gracePeriod?: number;
  /** Seconds between checks for keys rotated by another process; 0 disables. Default 60. */
  reloadInterval?: number;
}

/**
 * PostgreSQL connection pool settings (used when `database` is a `postgres://` URL).
 *
 * @example
 * ```ts
 * const config: IssuerConfig = {
 *   baseUrl: 'https://auth.example.com',
 *   database: 'postgres://gatehouse:secret@db:5432/gatehouse',
 *   postgres: { poolSize: 20 },
 * };
 * ```
 */
export interface PostgresConfig {
  /** Most connections per issuer process. Default 10. */
  poolSize?: number;
  /** Milliseconds a query waits for a free connection. Default 10000. */
  connectionTimeout?: number;
  /** Milliseconds an unused connection stays open. Default 30000. */
  idleTimeout?: number;
}

/** Lifetimes in seconds. */
export interface TtlConfig {
  /** Default 3600. */
  accessToken?: number;
  /** Default 60. */
  authorizationCode?: number;
  /** Default 3600. */
  idToken?: number;
  /** Default 1209600 (14 days). */
  refreshToken?: number;
  /** Default 1209600 (14 days). */
  session?: number;
  /** Default 1209600 (14 days). */
  grant?: number;
  /** Default 3600. */
  interaction?: number;
}

/** Logging settings. */
export interface LogConfig {
  /** pino level. Default `info`. */
  level?: LogLevel;
  /** Where JSON lines go. Default: standard output. */
  destination?: DestinationStream;
  /** A ready pino logger; `level` and `destination` are then ignored. Redaction still applies to child loggers. */
  logger?: Logger;
}

/** Management API HTTP limits. */
export interface HttpConfig {
  /** Largest request body in bytes (at most 1 MiB). Default 102400. */
  maxBodyBytes?: number;
  /** Deepest JSON nesting. Default 32. */
  maxJsonDepth?: number;
}

/** Password policy. */
export interface PasswordConfig {
  /** scrypt N, a power of two ≥ 1024. Default 16384. */
  scryptCost?: number;
  /** Shortest accepted password. Default 8. */
  minLength?: number;
}

/** Subject tokens (`POST /api/subject-tokens`). */
export interface SubjectTokenConfig {
  /** Lifetime in seconds (10–3600). Default 600. */
  ttl?: number;
}

/** Token exchange (RFC 8693) limits. */
export interface TokenExchangeConfig {
  /** Failed redemptions of unknown tokens per client and address before 429. Default 10. */
  maxFailures?: number;
  /** Window of that count, in seconds. Default 300. */
  failureWindow?: number;
}

/**
 * The `getCustomJwtClaims` function: a module run in a worker thread for every JWT access token.
 *
 * @example
 * ```ts
 * const customJwtClaims: CustomJwtClaimsConfig = {
 *   module: './claims.mjs',
 *   environmentVariables: { TENANT: 'acme' },
 * };
 * ```
 */
export interface CustomJwtClaimsConfig {
  /** Path of an ES module exporting `getCustomJwtClaims` (relative paths resolve against the working directory). */
  module: string;
  /** Values handed to the function as `environmentVariables`; the worker's `process.env` is empty. Default `{}`. */
  environmentVariables?: Readonly<Record<string, string>>;
  /** Deadline per call in milliseconds (100–60000). Default 5000. */
  timeout?: number;
  /** Heap limit of a worker in MiB (16–4096). Default 128. */
  memoryLimit?: number;
  /** Largest serialized result in bytes (1024–1048576). Default 65536. */
  maxResultBytes?: number;
  /** `deny` (no token, an OAuth error) or `issue-without-claims`. Default `deny`. */
  onError?: CustomClaimsOnError;
  /** Worker threads (1–16). Default 2. */
  workers?: number;
}

/** Administrator application created on first start. */
export interface AdminConfig {
  /** Fixed client id instead of a generated one. */
  clientId?: string;
  /** Fixed client secret (at least 32 characters) instead of a generated one. */
  clientSecret?: string;
}

/**
 * Options of `createIssuer()`. Only `baseUrl` is required.
 *
 * @example
 * ```ts
 * const config: IssuerConfig = { baseUrl: 'http://localhost:3001', dataDir: './.data' };
 * ```
 */
export interface IssuerConfig {
  /** Public URL of the issuer, e.g. `http://localhost:3001`. The issuer identifier is `{baseUrl}/oidc`. */
  baseUrl: string;
  /** Port `listen()` binds by default. Default 3001. */
  port?: number;
  /** Interface `listen()` binds by default. Default `127.0.0.1`. */
  host?: string;
  /** Directory of the SQLite file. Default `./.data`. */
  dataDir?: string;
  /**
   * SQLite file path, `:memory:`, or a PostgreSQL URL (`postgres://user:password@host:5432/db`) for
   * several instances on one database. Default `{dataDir}/issuer.sqlite`.
   */
  database?: string;
  /** PostgreSQL pool settings. */
  postgres?: PostgresConfig;
  /** A ready storage driver; replaces `database`. */
  store?: Store;
  /** Trust `X-Forwarded-Proto`/`-For` from a proxy. Default `false`. */
  trustProxy?: boolean;
  log?: LogConfig;
  keys?: KeyConfig;
  ttl?: TtlConfig;
  http?: HttpConfig;
  passwords?: PasswordConfig;
  admin?: AdminConfig;
  subjectTokens?: SubjectTokenConfig;
  tokenExchange?: TokenExchangeConfig;
  /** Custom JWT access-token claims. Default: none. */
  customJwtClaims?: CustomJwtClaimsConfig;
  /** Keys signing the sign-in cookies (each ≥ 32 characters). Default: generated once and stored. */
  cookieKeys?: readonly string[];
  /** DPoP (RFC 9449) at the token endpoint: always on; whether proofs need a server nonce. */
  dpop?: DpopConfig;
}

/** {@link IssuerConfig} after defaults and validation. */
export interface ResolvedConfig {
  /** `baseUrl` without a trailing slash. */
  readonly baseUrl: string;
  /** Path part of `baseUrl` (`''` when it is the origin). */
  readonly basePath: string;
  /** `{baseUrl}/oidc`. */
  readonly issuer: string;
  /** `{baseUrl}/api`: the Management API's resource indicator. */
  readonly managementAudience: string;
  readonly port: number;
  readonly host: string;
  readonly database: string;
  readonly postgres: Readonly<Required<PostgresConfig>>;
  readonly store: Store | undefined;
  readonly trustProxy: boolean;
  readonly log: Readonly<{
    level: LogLevel;
    destination: DestinationStream | undefined;
    logger: Logger | undefined;
  }>;
  readonly keys: Readonly<Required<KeyConfig>>;
  readonly ttl: Readonly<Required<TtlConfig>>;
  readonly http: Readonly<Required<HttpConfig>>;
  readonly passwords: Readonly<Required<PasswordConfig>>;
  readonly admin: Readonly<AdminConfig>;
  readonly subjectTokens: Readonly<Required<SubjectTokenConfig>>;
  readonly tokenExchange: Readonly<Required<TokenExchangeConfig>>;
  /** With `module` made absolute. */
  readonly customJwtClaims: Readonly<Required<CustomJwtClaimsConfig>> | undefined;
  readonly cookieKeys: readonly string[] | undefined;
  readonly dpop: ResolvedDpopConfig;
}

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

function boolean(value: unknown, fallback: boolean, option: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') return fail(option, 'must be true or false');
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
 * Merge `config` with {@link DEFAULTS} and validate it. Throws a `ConfigError` naming the first bad setting.
 *
 * @example
 * ```ts
 * import { resolveConfig } from '@gatehouse/issuer';
 * resolveConfig({ baseUrl: 'http://localhost:3001', keys: { gracePeriod: -1 } });
 * // ConfigError: "keys.gracePeriod" must be an integer between 0 and …
 * ```
 */
export function resolveConfig(config: IssuerConfig): ResolvedConfig {
  if (config === null || typeof config !== 'object') throw new ConfigError('config', 'must be an object');
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
    trustProxy: boolean(config.trustProxy, DEFAULTS.trustProxy, 'trustProxy'),
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
  });
}
