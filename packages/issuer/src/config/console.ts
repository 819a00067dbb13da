/**
 * The `console` setting of the issuer: whether the admin console is served at `{baseUrl}/console`.
 * When it is off, nothing is served there, the console's application is not registered, and the
 * Management API accepts machine-to-machine tokens only.
 *
 * @module
 */
import { z } from 'zod';
import { DEFAULTS } from './defaults.js';
import { parseSettings } from './parse.js';

/**
 * Console settings.
 *
 * @example
 * ```ts
 * import { createIssuer } from '@gatehouse/issuer';
 *
 * // An issuer managed only through the Management API.
 * const issuer = await createIssuer({ baseUrl: 'https://id.example.com', console: { enabled: false } });
 * ```
 */
export interface ConsoleConfig {
  /**
   * Serve the admin console at `{baseUrl}/console`. Default `true`. Environment:
   * `GATEHOUSE_CONSOLE_ENABLED`; flag: `--console-enabled=false`.
   */
  enabled?: boolean;
}

/**
 * {@link ConsoleConfig} after defaults and validation (`issuer.config.console`).
 *
 * @example
 * ```ts
 * const { enabled }: ResolvedConsoleConfig = issuer.config.console;
 * ```
 */
export interface ResolvedConsoleConfig {
  readonly enabled: boolean;
}

const CONSOLE = z.strictObject({ enabled: z.boolean().optional() });

/**
 * Validate the `console` setting and apply {@link DEFAULTS}`.console`. Throws a `ConfigError` naming a
 * bad or unknown member.
 *
 * @example
 * ```ts
 * resolveConsoleConfig({ enabled: false }); // { enabled: false }
 * resolveConsoleConfig(undefined); // { enabled: true }
 * ```
 */
export function resolveConsoleConfig(value: ConsoleConfig | undefined): ResolvedConsoleConfig {
  const settings = parseSettings(CONSOLE, value, 'console');
  return Object.freeze({ enabled: settings.enabled ?? DEFAULTS.console.enabled });
}
