/**
 * The plugin's frozen {@link DEFAULTS}. Option validation is shared by every adapter and lives in
 * `@gatehouse/core` (`resolveAdapterOptions`, `resolveScopeRequirement`), so all of them behave alike.
 * Anonymous access is a hook (`app.optionalAuth`) rather than an option here.
 *
 * @module
 */
import { ADAPTER_DEFAULTS } from '@gatehouse/core';

/**
 * Default value of every plugin option: `allowDelegation: true`, `handleErrors: true`, `mode: 'all'`.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from '@gatehouse/fastify';
 * DEFAULTS.handleErrors; // true
 * ```
 */
export const DEFAULTS = Object.freeze({
  allowDelegation: ADAPTER_DEFAULTS.allowDelegation,
  handleErrors: ADAPTER_DEFAULTS.handleErrors,
  mode: ADAPTER_DEFAULTS.mode,
  warmUp: ADAPTER_DEFAULTS.warmUp,
});
