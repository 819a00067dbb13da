/**
 * Configuration for the CLI: a JSON file, then environment variables, then command-line flags (each
 * overriding the previous). Unknown settings in the file are errors that name the setting; values are
 * validated by `resolveConfig()` when the command runs.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { IssuerConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';

/** Config file looked for in the working directory when none is given. */
export const DEFAULT_CONFIG_FILE = 'gatehouse-issuer.json';

/** Environment variables and the setting each sets. */
export const ENVIRONMENT: ReadonlyArray<
  readonly [variable: string, setting: string, kind: 'string' | 'integer' | 'boolean']
> = Object.freeze([
  ['GATEHOUSE_BASE_URL', 'baseUrl', 'string'],
  ['GATEHOUSE_PORT', 'port', 'integer'],
  ['GATEHOUSE_HOST', 'host', 'string'],
  ['GATEHOUSE_DATA_DIR', 'dataDir', 'string'],
  // DATABASE_URL (the usual name on hosting platforms) first, so GATEHOUSE_DATABASE wins when both are set.
  ['DATABASE_URL', 'database', 'string'],
  ['GATEHOUSE_DATABASE', 'database', 'string'],
  ['GATEHOUSE_POSTGRES_POOL_SIZE', 'postgres.poolSize', 'integer'],
  ['GATEHOUSE_TRUST_PROXY', 'trustProxy', 'boolean'],
  ['GATEHOUSE_LOG_LEVEL', 'log.level', 'string'],
  ['GATEHOUSE_KEY_ALGORITHM', 'keys.algorithm', 'string'],
  ['GATEHOUSE_ADMIN_CLIENT_ID', 'admin.clientId', 'string'],
  ['GATEHOUSE_ADMIN_CLIENT_SECRET', 'admin.clientSecret', 'string'],
  ['GATEHOUSE_DPOP_REQUIRE_NONCE', 'dpop.requireNonce', 'boolean'],
] as const);

/** Settings a config file may contain (nested objects list their keys). */
const KNOWN: Readonly<Record<string, true | readonly string[]>> = {
  baseUrl: true,
  port: true,
  host: true,
  dataDir: true,
  database: true,
  postgres: ['poolSize', 'connectionTimeout', 'idleTimeout'],
  trustProxy: true,
  cookieKeys: true,
  log: ['level'],
  keys: ['algorithm', 'rsaModulusLength', 'gracePeriod', 'reloadInterval'],
  ttl: ['accessToken', 'authorizationCode', 'idToken', 'refreshToken', 'session', 'grant', 'interaction'],
  http: ['maxBodyBytes', 'maxJsonDepth'],
  passwords: ['scryptCost', 'minLength'],
  admin: ['clientId', 'clientSecret'],
  subjectTokens: ['ttl'],
  tokenExchange: ['maxFailures', 'failureWindow'],
  dpop: ['requireNonce'],
  customJwtClaims: [
    'module',
    'environmentVariables',
    'timeout',
    'memoryLimit',
    'maxResultBytes',
    'onError',
    'workers',
  ],
};

type Settings = Record<string, unknown>;

function set(target: Settings, path: string, value: unknown): void {
  const [head, tail] = path.split('.') as [string, string | undefined];
  if (tail === undefined) target[head] = value;
  else target[head] = { ...((target[head] as Settings | undefined) ?? {}), [tail]: value };
}

function checkKnown(settings: Settings, file: string): void {
  for (const [key, value] of Object.entries(settings)) {
    const known = KNOWN[key];
    if (known === undefined) throw new ConfigError(key, `is not a known setting (in ${file})`);
    if (Array.isArray(known) && value !== null && typeof value === 'object') {
      for (const sub of Object.keys(value)) {
        if (!known.includes(sub))
          throw new ConfigError(`${key}.${sub}`, `is not a known setting (in ${file})`);
      }
    }
  }
}

/** Read a JSON config file; throws a `ConfigError` naming the file on any problem. */
export function readConfigFile(path: string): Settings {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new ConfigError('config', `file ${path} cannot be read`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError('config', `file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError('config', `file ${path} must hold a JSON object`);
  checkKnown(parsed as Settings, path);
  return parsed as Settings;
}

function parseEnv(variable: string, kind: 'string' | 'integer' | 'boolean', raw: string): unknown {
  if (kind === 'integer') {
    if (!/^\d+$/.test(raw)) throw new ConfigError(variable, 'must be an integer');
    return Number(raw);
  }
  if (kind === 'boolean') {
    if (!/^(?:true|false|1|0)$/i.test(raw)) throw new ConfigError(variable, 'must be true or false');
    return /^(?:true|1)$/i.test(raw);
  }
  return raw;
}

/** Where the CLI gets its settings. */
export interface ConfigSources {
  /** `--config` value, if given. */
  readonly file?: string | undefined;
  /** Flags given on the command line, by setting path. */
  readonly flags?: Readonly<Record<string, unknown>>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/**
 * Merge the config file, environment and flags. `baseUrl` defaults to `http://localhost:{port}` so
 * `gatehouse-issuer start` works with no configuration at all.
 *
 * @example
 * ```ts
 * const config = loadConfig({ env: process.env, cwd: process.cwd() });
 * ```
 */
export function loadConfig(sources: ConfigSources): IssuerConfig {
  const explicit = sources.file ?? sources.env.GATEHOUSE_CONFIG;
  const fallback = resolve(sources.cwd, DEFAULT_CONFIG_FILE);
  const file =
    explicit === undefined ? (existsSync(fallback) ? fallback : undefined) : resolve(sources.cwd, explicit);
  const settings: Settings = file === undefined ? {} : readConfigFile(file);
  for (const [variable, setting, kind] of ENVIRONMENT) {
    const raw = sources.env[variable];
    if (raw !== undefined && raw !== '') set(settings, setting, parseEnv(variable, kind, raw));
  }
  for (const [setting, value] of Object.entries(sources.flags ?? {})) set(settings, setting, value);
  if (typeof settings.dataDir === 'string') settings.dataDir = resolve(sources.cwd, settings.dataDir);
  else settings.dataDir = resolve(sources.cwd, '.data');
  if (
    typeof settings.database === 'string' &&
    settings.database !== ':memory:' &&
    !/^[a-z][a-z0-9+.-]*:\/\//i.test(settings.database)
  )
    settings.database = resolve(sources.cwd, settings.database);
  const claims = settings.customJwtClaims as Settings | undefined;
  if (claims !== null && typeof claims === 'object' && typeof claims.module === 'string')
    settings.customJwtClaims = { ...claims, module: resolve(sources.cwd, claims.module) };
  if (settings.baseUrl === undefined)
    settings.baseUrl = `http://localhost:${typeof settings.port === 'number' ? settings.port : 3001}`;
  return settings as unknown as IssuerConfig;
}
