/**
 * The options of `createIssuer()` and what they resolve to: the settings of config/ (types.ts,
 * schema.ts), with the type of the one object only code can pass besides a logger — a ready storage
 * driver, `store` — filled in as `Store`. config/ leaves that type open so that it names nothing of
 * storage/; everything else in the issuer reads its configuration as {@link ResolvedConfig}.
 *
 * @module
 */
import { resolveSettings } from './config/schema.js';
import type { IssuerSettings, ResolvedSettings } from './config/types.js';
import type { Store } from './storage/store.js';

/**
 * Options of `createIssuer()`. Only `baseUrl` is required.
 *
 * @example
 * ```ts
 * const config: IssuerConfig = { baseUrl: 'http://localhost:3001', dataDir: './.data' };
 * ```
 */
export interface IssuerConfig extends IssuerSettings<Store> {}

/**
 * {@link IssuerConfig} after defaults and validation.
 *
 * @example
 * ```ts
 * const config: ResolvedConfig = resolveConfig({ baseUrl: 'http://localhost:3001' });
 * config.issuer; // 'http://localhost:3001/oidc'
 * ```
 */
export interface ResolvedConfig extends ResolvedSettings<Store> {}

/**
 * Merge `config` with `DEFAULTS` and validate it. Throws a `ConfigError` naming the first bad
 * setting, or the first name (at any level) that is not a setting, with the closest known one.
 *
 * @example
 * ```ts
 * import { resolveConfig } from '@gatehouse/issuer';
 * resolveConfig({ baseUrl: 'http://localhost:3001', keys: { gracePeriod: -1 } });
 * // ConfigError: "keys.gracePeriod" must be an integer, 0 or more
 * resolveConfig({ baseURL: 'http://localhost:3001' });
 * // ConfigError: "baseURL" is not a known option — did you mean "baseUrl"?
 * ```
 */
export function resolveConfig(config: IssuerConfig): ResolvedConfig {
  return resolveSettings(config);
}
