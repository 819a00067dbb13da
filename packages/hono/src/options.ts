/**
 * The adapter's frozen {@link DEFAULTS}. Option validation is shared by every adapter and lives in
 * `@gatehouse/core` (`resolveAdapterOptions`, `resolveScopeRequirement`), so all of them behave alike.
 *
 * @module
 */
import { ADAPTER_DEFAULTS } from '@gatehouse/core';

/**
 * Default value of every adapter option: `optional: false`, `allowDelegation: true`, `handleErrors: true`,
 * `mode: 'all'`.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from '@gatehouse/hono';
 * DEFAULTS.optional; // false
 * ```
 */
export const DEFAULTS = ADAPTER_DEFAULTS;
