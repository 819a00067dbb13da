/**
 * {@link resolveSettings}: the only place {@link IssuerSettings} (what users write, `types.ts`) is merged
 * with `DEFAULTS` and validated. A bad setting, or a name that is no setting, throws a `ConfigError`
 * naming it, before anything starts.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { resolveConsoleConfig } from './console.js';
import {
  ACCESS_TOKEN_FORMATS,
  CUSTOM_CLAIMS_ON_ERROR,
  LOG_LEVELS,
  MAX_SUBJECT_TOKEN_TTL,
  SIGNING_ALGORITHMS,
} from './constants.js';
import { DEFAULTS } from './defaults.js';
import { resolveDpopConfig } from './dpop.js';
import { checkOptionNames, OPTION_TREE } from './keys.js';
import { integer, oneOf, parseSetting, parseSettings, text, withDefaults } from './parse.js';
import { resolveProtection } from './protection.js';
import { resolveShutdownConfig } from './shutdown.js';
import { resolveTelemetryConfig } from './telemetry.js';
import type { CustomJwtClaimsConfig, IssuerSettings, ResolvedSettings } from './types.js';
import { resolveWebhookConfig } from './webhooks.js';

export type {
  AdminConfig,
  CustomJwtClaimsConfig,
  HttpConfig,
  IssuerSettings,
  KeyConfig,
  LogConfig,
  PasswordConfig,
  PostgresConfig,
  ResolvedSettings,
  SubjectTokenConfig,
  TokenExchangeConfig,
  TtlConfig,
} from './types.js';

const fail = (option: string, must: string): never => {
  throw new ConfigError(option, must);
};

function parseBaseUrl(value: unknown): URL {
  if (value === undefined) return fail('baseUrl', 'is required (e.g. http://localhost:3001)');
  if (typeof value === 'string' && /^[a-z0-9.-]+(?::\d+)?(?:\/|$)/i.test(value)) {
    // `localhost:3001` parses as a URL of scheme "localhost:": say what is missing.
    const meant = `${/^(?:localhost|127\.|\[::1\])/i.test(value) ? 'http' : 'https'}://${value.replace(/^\/+/, '')}`;
    return fail(
      'baseUrl',
      `is missing its scheme (http:// or https://): write ${JSON.stringify(meant.slice(0, 200))}`,
    );
  }
  let url: URL;
  try {
    url = new URL(parseSetting(text(), value, 'baseUrl'));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    return fail('baseUrl', 'must be an absolute http(s) URL, e.g. http://localhost:3001');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail('baseUrl', 'must use http: or https:');
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    fail('baseUrl', 'must not contain a query, a fragment or credentials');
  }
  return url;
}

/** Whether `value` has the shape of a storage driver (`Store`, storage/store.ts) as far as it is checked here. */
function isStore(value: unknown): boolean {
  const store = value as { migrate?: unknown; users?: unknown; payloads?: unknown };
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof store.migrate === 'function' &&
    typeof store.users === 'object' &&
    typeof store.payloads === 'object'
  );
}

/** A value with a method `name` (a stream's `write`, a logger's `child`). */
const withMethod = (name: string, error: string) =>
  z.custom<never>((value) => typeof (value as Record<string, unknown> | null)?.[name] === 'function', {
    error,
  });

const POSTGRES = z.strictObject({
  poolSize: integer(2, 1_000).optional(),
  connectionTimeout: integer(100, 600_000).optional(),
  idleTimeout: integer(1_000, 3_600_000).optional(),
});

const LOG = z.strictObject({
  level: oneOf(LOG_LEVELS).optional(),
  destination: withMethod('write', 'must be a writable stream').optional(),
  logger: withMethod('child', 'must be a pino logger').optional(),
});

const KEYS = z.strictObject({
  algorithm: oneOf(SIGNING_ALGORITHMS).optional(),
  rsaModulusLength: integer(2048, 4096).optional(),
  gracePeriod: integer(0).optional(),
  reloadInterval: integer(0, 86_400).optional(),
});

const TTL = z.strictObject({
  accessToken: integer(1, 86_400).optional(),
  authorizationCode: integer(1, 600).optional(),
  idToken: integer(1, 86_400).optional(),
  refreshToken: integer(1).optional(),
  session: integer(1).optional(),
  grant: integer(1).optional(),
  interaction: integer(1, 86_400).optional(),
});

const HTTP = z.strictObject({
  maxBodyBytes: integer(1_024, 1_048_576).optional(),
  maxJsonDepth: integer(2, 256).optional(),
});

const PASSWORDS = z.strictObject({
  scryptCost: integer(1_024, 1_048_576)
    .refine((n) => (n & (n - 1)) === 0, { error: 'must be a power of two' })
    .optional(),
  minLength: integer(1, 1_024).optional(),
});

const ADMIN = z
  .strictObject({
    clientId: text()
      .regex(/^[A-Za-z0-9._~-]{3,128}$/, {
        error: 'must be 3–128 characters of A-Z, a-z, 0-9, ".", "_", "~" or "-"',
      })
      .refine((id) => !id.startsWith('usr_'), { error: 'must not start with "usr_" (reserved for user ids)' })
      .optional(),
    clientSecret: text().min(32, { error: 'must be at least 32 characters' }).optional(),
  })
  .superRefine((admin, context) => {
    if ((admin.clientId === undefined) !== (admin.clientSecret === undefined)) {
      context.addIssue({
        code: 'custom',
        path: [admin.clientId === undefined ? 'clientId' : 'clientSecret'],
        message: 'must be set together with the other admin credential',
      });
    }
  });

const SUBJECT_TOKENS = z.strictObject({ ttl: integer(10, MAX_SUBJECT_TOKEN_TTL).optional() });

const TOKEN_EXCHANGE = z.strictObject({
  maxFailures: integer(1, 10_000).optional(),
  failureWindow: integer(1, 86_400).optional(),
});

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const CUSTOM_CLAIMS = z.strictObject({
  module: text().refine((path) => existsSync(resolve(path)), {
    error: (issue) => `must name an existing file (${resolve(String(issue.input))} does not exist)`,
  }),
  environmentVariables: z
    .custom<Readonly<Record<string, string>>>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.entries(value).every(([name, entry]) => ENV_NAME.test(name) && typeof entry === 'string'),
      { error: 'must map variable names to strings' },
    )
    .optional(),
  timeout: integer(100, 60_000).optional(),
  memoryLimit: integer(16, 4_096).optional(),
  maxResultBytes: integer(1_024, 1_048_576).optional(),
  onError: oneOf(CUSTOM_CLAIMS_ON_ERROR).optional(),
  workers: integer(1, 16).optional(),
});

const KEY_TEXT = 'must contain strings of at least 32 characters';
const COOKIE_KEYS = z
  .array(z.string({ error: KEY_TEXT }).min(32, { error: KEY_TEXT }), { error: 'must be a non-empty array' })
  .min(1, { error: 'must be a non-empty array' });

function resolveCustomClaims(value: CustomJwtClaimsConfig): Readonly<Required<CustomJwtClaimsConfig>> {
  const given = parseSettings(CUSTOM_CLAIMS, value, 'customJwtClaims');
  return withDefaults(
    { ...DEFAULTS.customJwtClaims, module: '', environmentVariables: Object.freeze({}) },
    {
      ...given,
      module: resolve(given.module),
      environmentVariables: Object.freeze({ ...given.environmentVariables }),
    },
  );
}

/**
 * Whether a `database` value is a URL typed wrong rather than a file path: a scheme followed by `//`
 * or `:/` without the rest of `://` (`postgres//db`, `postgresql:/db`), or `postgres`/`postgresql`
 * followed by a colon but no `//`. Taken as a path, such a value would quietly create a new SQLite
 * database (and administrator) under the working directory.
 *
 * @example
 * ```ts
 * isMalformedDatabaseUrl('postgres//gatehouse@localhost/db'); // true
 * isMalformedDatabaseUrl('postgres://gatehouse@localhost/db'); // false
 * isMalformedDatabaseUrl('./data/issuer.sqlite'); // false
 * ```
 */
export function isMalformedDatabaseUrl(value: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false;
  return /^[a-z][a-z0-9+.-]+(?:\/\/|:\/)/i.test(value) || /^postgres(?:ql)?:/i.test(value);
}

/**
 * Merge `config` with {@link DEFAULTS} and validate it. Throws a `ConfigError` naming the first bad
 * setting, or the first name (at any level) that is not a setting, with the closest known one. A ready
 * `store` is checked for its shape and passed through as it is. The package exports it as
 * `resolveConfig()` (issuer-config.ts), typed with `Store`.
 *
 * @example
 * ```ts
 * resolveSettings({ baseUrl: 'http://localhost:3001', keys: { gracePeriod: -1 } });
 * // ConfigError: "keys.gracePeriod" must be an integer, 0 or more
 * resolveSettings({ baseURL: 'http://localhost:3001' });
 * // ConfigError: "baseURL" is not a known option — did you mean "baseUrl"?
 * ```
 */
export function resolveSettings<Driver>(config: IssuerSettings<Driver>): ResolvedSettings<Driver> {
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new ConfigError('config', 'must be an object');
  checkOptionNames(config as unknown as Record<string, unknown>, OPTION_TREE);
  const given = <T>(schema: z.ZodType<T>, option: keyof IssuerSettings, fallback: T): T =>
    config[option] === undefined ? fallback : parseSetting(schema, config[option], option);
  const port = given(integer(0, 65_535), 'port', DEFAULTS.port);
  const url = parseBaseUrl(config.baseUrl);
  const baseUrl = url.href.replace(/\/+$/, '');
  const basePath = url.pathname.replace(/\/+$/, '');

  const host = given(text(), 'host', DEFAULTS.host);
  const dataDir = given(text(), 'dataDir', DEFAULTS.dataDir);
  const database = given(text(), 'database', join(dataDir, DEFAULTS.databaseFile));
  if (isMalformedDatabaseUrl(database))
    fail(
      'database',
      'looks like a URL but is not one (a scheme needs "://"): write postgres://user:password@host:5432/gatehouse, or a SQLite file path such as ./data/issuer.sqlite',
    );
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(database)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'postgres' && scheme !== 'postgresql')
    fail('database', 'must be a SQLite file path, ":memory:" or a postgres:// (postgresql://) URL');
  if (scheme !== undefined && !URL.canParse(database))
    fail('database', 'must be a valid URL, e.g. postgres://user:password@host:5432/gatehouse');
  if (config.store !== undefined && !isStore(config.store))
    fail('store', 'must implement the Store interface');

  const log = parseSettings(LOG, config.log, 'log');
  const protection = resolveProtection(config);
  const customJwtClaims =
    config.customJwtClaims === undefined ? undefined : resolveCustomClaims(config.customJwtClaims);
  const cookieKeys =
    config.cookieKeys === undefined
      ? undefined
      : Object.freeze([...parseSetting(COOKIE_KEYS, config.cookieKeys, 'cookieKeys')]);

  return Object.freeze({
    baseUrl,
    basePath,
    issuer: `${baseUrl}/oidc`,
    managementAudience: `${baseUrl}/api`,
    port,
    host,
    database,
    postgres: withDefaults(DEFAULTS.postgres, parseSettings(POSTGRES, config.postgres, 'postgres')),
    store: config.store,
    ...protection,
    trustProxy: protection.proxy.hops > 0 || protection.proxy.addresses.length > 0,
    accessTokenFormat: given(oneOf(ACCESS_TOKEN_FORMATS), 'accessTokenFormat', DEFAULTS.accessTokenFormat),
    log: Object.freeze({
      level: log.level ?? DEFAULTS.log.level,
      destination: log.destination,
      logger: log.logger,
    }),
    keys: withDefaults(DEFAULTS.keys, parseSettings(KEYS, config.keys, 'keys')),
    ttl: withDefaults(DEFAULTS.ttl, parseSettings(TTL, config.ttl, 'ttl')),
    http: withDefaults(DEFAULTS.http, parseSettings(HTTP, config.http, 'http')),
    passwords: withDefaults(DEFAULTS.passwords, parseSettings(PASSWORDS, config.passwords, 'passwords')),
    admin: Object.freeze({ ...parseSettings(ADMIN, config.admin, 'admin') }),
    subjectTokens: Object.freeze({
      ttl:
        parseSettings(SUBJECT_TOKENS, config.subjectTokens, 'subjectTokens').ttl ??
        DEFAULTS.subjectTokens.ttl,
    }),
    tokenExchange: withDefaults(
      DEFAULTS.tokenExchange,
      parseSettings(TOKEN_EXCHANGE, config.tokenExchange, 'tokenExchange'),
    ),
    customJwtClaims,
    cookieKeys,
    dpop: resolveDpopConfig(config.dpop),
    console: resolveConsoleConfig(config.console),
    webhooks: resolveWebhookConfig(config.webhooks),
    shutdown: resolveShutdownConfig(config.shutdown),
    telemetry: resolveTelemetryConfig(config.telemetry),
  });
}
