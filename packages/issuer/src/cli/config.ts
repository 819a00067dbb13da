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
import { isMalformedDatabaseUrl } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { closest } from '../internal/suggest.js';
import type { IssuerConfig } from '../issuer-config.js';
import { CLI_SETTINGS, parseValue, type SettingKind } from './settings.js';

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
 * Environment variables and the setting each sets, from {@link CLI_SETTINGS} (where several set one
 * setting, the later one wins).
 *
 * @example
 * ```ts
 * ENVIRONMENT.find(([variable]) => variable === 'GATEHOUSE_PORT'); // ['GATEHOUSE_PORT', 'port', 'integer']
 * ```
 */
export const ENVIRONMENT: ReadonlyArray<readonly [variable: string, setting: string, kind: SettingKind]> =
  Object.freeze(
    CLI_SETTINGS.flatMap((entry) =>
      entry.env.map((variable) => Object.freeze([variable, entry.setting, entry.kind] as const)),
    ),
  );

/**
 * `GATEHOUSE_*` variables that are not issuer settings but belong to Gatehouse all the same: the
 * config file's path, and the names the docs give a client's credentials, a personal access token
 * and a webhook receiver's secret. They are never reported as unknown.
 */
const OTHER_VARIABLES: ReadonlySet<string> = new Set([
  'GATEHOUSE_CONFIG',
  'GATEHOUSE_CLIENT_ID',
  'GATEHOUSE_CLIENT_SECRET',
  'GATEHOUSE_PAT',
  'GATEHOUSE_WEBHOOK_SECRET',
]);

/**
 * One warning line for each set `GATEHOUSE_*` variable the issuer does not read (a typo such as
 * `GATEHOUSE_PROT` would otherwise leave the setting at its default in silence), naming the closest
 * variable it does read. Variables of other programs are not looked at.
 *
 * @example
 * ```ts
 * unknownVariables({ GATEHOUSE_PROT: '3005' });
 * // ['warning: GATEHOUSE_PROT is not a gatehouse-issuer setting and is ignored (did you mean GATEHOUSE_PORT?)']
 * ```
 */
export function unknownVariables(env: Readonly<Record<string, string | undefined>>): string[] {
  const prefix = 'GATEHOUSE_';
  const known = new Set(ENVIRONMENT.map(([variable]) => variable));
  // Compared without the prefix they all share, so only the part that differs counts.
  const suffixes = [...known]
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length));
  return Object.keys(env)
    .filter((name) => name.startsWith(prefix) && !known.has(name) && !OTHER_VARIABLES.has(name))
    .sort()
    .map((name) => {
      const match = closest(name.slice(prefix.length), suffixes);
      return `warning: ${name} is not a gatehouse-issuer setting and is ignored${match === undefined ? '' : ` (did you mean ${prefix}${match}?)`}`;
    });
}

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
      set(settings, setting, parseValue(variable, kind, raw));
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
    !/^[a-z][a-z0-9+.-]*:\/\//i.test(settings.database) &&
    // A URL typed wrong stays as written, for resolveConfig() to refuse naming the variable.
    !isMalformedDatabaseUrl(settings.database)
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
