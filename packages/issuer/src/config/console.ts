/**
 * The `console` settings of the issuer: whether the admin console is served at `{baseUrl}/console`
 * (when it is off, nothing is served there, the console's application is not registered, and the
 * Management API accepts machine-to-machine tokens only), and how recent a console user's sign-in must
 * be for the dangerous changes (`reauthenticateAfter`).
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
  /**
   * Seconds after signing in during which a console user may make the dangerous changes — rotate the
   * signing key, grant a role (or add a scope to one) carrying Management API scopes, register a webhook,
   * delete a user or an application. Past it, the Management API answers 401
   * `insufficient_user_authentication` with `max_age` (RFC 9470) and the console asks for the password
   * (and the TOTP code where one is enrolled) again. Machine-to-machine callers are not affected.
   * Default 300. Environment: `GATEHOUSE_CONSOLE_REAUTHENTICATE_AFTER`; flag:
   * `--console-reauthenticate-after`.
   */
  reauthenticateAfter?: number;
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
  readonly reauthenticateAfter: number;
}

const CONSOLE = z.strictObject({
  enabled: z.boolean().optional(),
  reauthenticateAfter: z.number().int().min(0).max(86_400).optional(),
});

/**
 * Validate the `console` setting and apply {@link DEFAULTS}`.console`. Throws a `ConfigError` naming a
 * bad or unknown member.
 *
 * @example
 * ```ts
 * resolveConsoleConfig({ enabled: false }); // { enabled: false, reauthenticateAfter: 300 }
 * resolveConsoleConfig(undefined); // { enabled: true, reauthenticateAfter: 300 }
 * ```
 */
export function resolveConsoleConfig(value: ConsoleConfig | undefined): ResolvedConsoleConfig {
  const settings = parseSettings(CONSOLE, value, 'console');
  return Object.freeze({
    enabled: settings.enabled ?? DEFAULTS.console.enabled,
    reauthenticateAfter: settings.reauthenticateAfter ?? DEFAULTS.console.reauthenticateAfter,
  });
}
