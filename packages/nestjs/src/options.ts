/**
 * The module's frozen {@link DEFAULTS} and the validation of what `forRoot()` / `forRootAsync()` take.
 * Everything but the module's own switch is validated by `@gatehouse/core` (`resolveAdapterOptions`),
 * like in every other adapter; a bad option throws a `TypeError` naming it when the module is defined.
 *
 * @module
 */
import {
  ADAPTER_DEFAULTS,
  ADAPTER_OPTIONS,
  type ResolvedAdapterOptions,
  rejectUnknownOptions,
  resolveAdapterOptions,
} from '@gatehouse/core';
import type { GatehouseModuleAsyncOptions, GatehouseModuleOptions, ModuleSwitches } from './types.js';

/**
 * Default value of every module option: the shared adapter defaults (`optional: false`,
 * `allowDelegation: true`, `handleErrors: true`, `mode: 'all'`, `warmUp: false`) and `globalGuard: true`.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from '@gatehouse/nestjs';
 * DEFAULTS.globalGuard; // true
 * ```
 */
export const DEFAULTS = Object.freeze({
  ...ADAPTER_DEFAULTS,
  /** Every route is guarded unless it says `@Public()`: protection is the safe default. */
  globalGuard: true,
});

const SWITCHES = Object.keys({ globalGuard: 1 } satisfies Record<keyof ModuleSwitches, 1>);
const MODULE_OPTIONS = Object.freeze([...ADAPTER_OPTIONS, ...SWITCHES]);
const ASYNC_OPTIONS = Object.freeze(
  Object.keys({ imports: 1, inject: 1, useFactory: 1, globalGuard: 1 } satisfies Record<
    keyof GatehouseModuleAsyncOptions,
    1
  >),
);

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

function globalGuard(value: unknown): boolean {
  if (value === undefined) return DEFAULTS.globalGuard;
  if (typeof value !== 'boolean') throw new TypeError('"globalGuard" option must be a boolean');
  return value;
}

/**
 * Validate `forRoot()` options: the guard's resolved options (verifier, metadata, switches) and
 * whether the guard is global.
 *
 * @example
 * ```ts
 * const { gatehouse, globalGuard } = resolveModuleOptions({ issuer, audience, globalGuard: false });
 * ```
 */
export function resolveModuleOptions(options: GatehouseModuleOptions): {
  gatehouse: ResolvedAdapterOptions;
  globalGuard: boolean;
} {
  if (!isObject(options)) throw new TypeError('options must be an object');
  rejectUnknownOptions(options, MODULE_OPTIONS);
  const { globalGuard: global, ...adapterOptions } = options;
  return { gatehouse: resolveAdapterOptions(adapterOptions), globalGuard: globalGuard(global) };
}

/**
 * Validate `forRootAsync()` options (the factory's result is validated by core when it resolves).
 *
 * @example
 * ```ts
 * resolveAsyncOptions({ useFactory: () => ({ issuer, audience }) }); // { globalGuard: true }
 * ```
 */
export function resolveAsyncOptions(options: GatehouseModuleAsyncOptions): { globalGuard: boolean } {
  if (!isObject(options)) throw new TypeError('options must be an object');
  rejectUnknownOptions(options, ASYNC_OPTIONS);
  if (typeof options.useFactory !== 'function')
    throw new TypeError('"useFactory" option must be a function returning the options');
  for (const list of ['imports', 'inject'] as const) {
    if (options[list] !== undefined && !Array.isArray(options[list]))
      throw new TypeError(`"${list}" option must be an array`);
  }
  return { globalGuard: globalGuard(options.globalGuard) };
}
