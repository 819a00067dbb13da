/**
 * Configuration errors in the words the user wrote: `createIssuer()` names settings by their path
 * (`admin.clientSecret`), but from the CLI the value came from a flag, an environment variable or the
 * config file, and the message names that instead.
 *
 * @module
 */
import { ConfigError } from '../errors.js';
import { FLAGS } from './args.js';
import { ENVIRONMENT, type SettingOrigin } from './config.js';

/**
 * The ways to set `setting` from the CLI, for a setting nobody set: `--port, GATEHOUSE_PORT or "port" in
 * the config file`.
 *
 * @example
 * ```ts
 * waysToSet('admin.clientId'); // '--admin-client-id, GATEHOUSE_ADMIN_CLIENT_ID or "admin.clientId" in the config file'
 * ```
 */
export function waysToSet(setting: string): string {
  const ways = [
    ...Object.entries(FLAGS)
      .filter(([, flag]) => flag.setting === setting)
      .map(([name]) => name),
    ...ENVIRONMENT.filter(([, target]) => target === setting).map(([variable]) => variable),
  ];
  return [...ways, `"${setting}" in the config file`].join(', ').replace(/, (?=[^,]*$)/, ' or ');
}

/**
 * `err` restated for the CLI: the setting's flag or environment variable named instead of its path,
 * the config file appended for a file setting, and the ways to set it for a setting nobody set.
 * Errors already naming a flag or variable come back unchanged.
 *
 * @example
 * ```ts
 * const origins = new Map([['admin.clientSecret', { kind: 'env', name: 'GATEHOUSE_ADMIN_CLIENT_SECRET' }]]);
 * explainConfigError(new ConfigError('admin.clientSecret', 'must be at least 32 characters'), origins).message;
 * // '"GATEHOUSE_ADMIN_CLIENT_SECRET" must be at least 32 characters'
 * ```
 */
export function explainConfigError(
  err: ConfigError,
  origins: ReadonlyMap<string, SettingOrigin>,
): ConfigError {
  const path = err.option;
  if (path.startsWith('-') || /^[A-Z][A-Z0-9_]*$/.test(path) || path === 'config') return err;
  let origin: SettingOrigin | undefined;
  for (let at = path; at !== '' && origin === undefined; at = at.slice(0, Math.max(0, at.lastIndexOf('.'))))
    origin = origins.get(at);
  if (origin === undefined) {
    const known = ENVIRONMENT.some(([, setting]) => setting === path) || path in settingFlags();
    return known ? new ConfigError(path, `${err.requirement} (set it with ${waysToSet(path)})`) : err;
  }
  if (origin.kind === 'file') return new ConfigError(path, `${err.requirement} (in ${origin.name})`);
  return new ConfigError(origin.name, err.requirement);
}

function settingFlags(): Record<string, string> {
  return Object.fromEntries(Object.entries(FLAGS).map(([name, flag]) => [flag.setting, name]));
}
