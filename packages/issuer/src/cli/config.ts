/**
 * Configuration for the CLI: a JSON file, then environment variables, then command-line flags (each
 * overriding the previous). Unknown settings in the file are errors that name the setting; values are
 * validated by `resolveConfig()` when the command runs.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  checkOptionNames,
  EMBEDDING_ONLY,
  OPTION_TREE,
  type OptionTree,
  withoutPaths,
} from '../config/keys.js';
import type { IssuerConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';

/**
 * Config file looked for in the working directory when none is given.
 *
 * @example
 * ```ts
 * existsSync(join(process.cwd(), DEFAULT_CONFIG_FILE)); // ./gatehouse-issuer.json
 * ```
 */
export const DEFAULT_CONFIG_FILE = 'gatehouse-issuer.json';

/**
 * Environment variables and the setting each sets.
 *
 * @example
 * ```ts
 * ENVIRONMENT.find(([variable]) => variable === 'GATEHOUSE_PORT'); // ['GATEHOUSE_PORT', 'port', 'integer']
 * ```
 */
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
  ['GATEHOUSE_CONSOLE', 'console.enabled', 'boolean'],
] as const);

/** Settings a config file may contain: every option but those only code can pass. */
const FILE_SETTINGS: OptionTree = withoutPaths(OPTION_TREE, EMBEDDING_ONLY);

type Settings = Record<string, unknown>;

function set(target: Settings, path: string, value: unknown): void {
  const [head, tail] = path.split('.') as [string, string | undefined];
  if (tail === undefined) target[head] = value;
  else target[head] = { ...((target[head] as Settings | undefined) ?? {}), [tail]: value };
}

/**
 * Read a JSON config file; throws a `ConfigError` naming the file on any problem.
 *
 * @example
 * ```ts
 * const settings = readConfigFile('/etc/gatehouse/issuer.json');
 * ```
 */
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
  checkOptionNames(parsed as Settings, FILE_SETTINGS, 'setting', ` (in ${path})`);
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

/**
 * Where the CLI gets its settings.
 *
 * @example
 * ```ts
 * const sources: ConfigSources = { file: 'issuer.json', env: process.env, cwd: process.cwd() };
 * ```
 */
export interface ConfigSources {
  /** `--config` value, if given. */
  readonly file?: string | undefined;
  /** Flags given on the command line, by setting path. */
  readonly flags?: Readonly<Record<string, unknown>>;
  /** The flag that set each setting of `flags` (e.g. `port` → `--port`), for messages. */
  readonly flagNames?: Readonly<Record<string, string>>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/**
 * Where a setting's value came from: a flag, an environment variable, or the config file.
 *
 * @example
 * ```ts
 * const origin: SettingOrigin = { kind: 'env', name: 'GATEHOUSE_PORT' };
 * ```
 */
export type SettingOrigin =
  | { readonly kind: 'flag'; readonly name: string }
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'file'; readonly name: string };

/**
 * Merged settings, and where each came from (by dotted setting path).
 *
 * @example
 * ```ts
 * const { config, origins }: LoadedConfig = loadSettings({ env: process.env, cwd: process.cwd() });
 * ```
 */
export interface LoadedConfig {
  readonly config: IssuerConfig;
  readonly origins: ReadonlyMap<string, SettingOrigin>;
}

function recordFile(origins: Map<string, SettingOrigin>, file: string, value: unknown, prefix = ''): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [name, child] of Object.entries(value)) {
    origins.set(`${prefix}${name}`, { kind: 'file', name: file });
    recordFile(origins, file, child, `${prefix}${name}.`);
  }
}

/**
 * Merge the config file, environment and flags, and remember where each setting came from (so an
 * error can name what the user wrote: `GATEHOUSE_PORT`, `--port`, or the file). `baseUrl` defaults to
 * `http://localhost:{port}` so `gatehouse-issuer start` works with no configuration at all.
 *
 * @example
 * ```ts
 * const { config, origins } = loadSettings({ env: process.env, cwd: process.cwd() });
 * origins.get('port'); // { kind: 'env', name: 'GATEHOUSE_PORT' } when that variable is set
 * ```
 */
export function loadSettings(sources: ConfigSources): LoadedConfig {
  const explicit = sources.file ?? sources.env.GATEHOUSE_CONFIG;
  const fallback = resolve(sources.cwd, DEFAULT_CONFIG_FILE);
  const file =
    explicit === undefined ? (existsSync(fallback) ? fallback : undefined) : resolve(sources.cwd, explicit);
  const settings: Settings = file === undefined ? {} : readConfigFile(file);
  const origins = new Map<string, SettingOrigin>();
  if (file !== undefined) recordFile(origins, file, settings);
  for (const [variable, setting, kind] of ENVIRONMENT) {
    const raw = sources.env[variable];
    if (raw !== undefined && raw !== '') {
      set(settings, setting, parseEnv(variable, kind, raw));
      origins.set(setting, { kind: 'env', name: variable });
    }
  }
  for (const [setting, value] of Object.entries(sources.flags ?? {})) {
    set(settings, setting, value);
    origins.set(setting, { kind: 'flag', name: sources.flagNames?.[setting] ?? setting });
  }
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
  return { config: settings as unknown as IssuerConfig, origins };
}

/**
 * Merge the config file, environment and flags ({@link loadSettings} without the origins).
 *
 * @example
 * ```ts
 * const config = loadConfig({ env: process.env, cwd: process.cwd() });
 * ```
 */
export function loadConfig(sources: ConfigSources): IssuerConfig {
  return loadSettings(sources).config;
}
