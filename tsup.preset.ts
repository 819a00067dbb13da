/**
 * The one tsup build every package shares: `src/index.ts` to ESM and CommonJS with `.d.ts` files and
 * source maps, for Node 22. A package's `tsup.config.ts` is `defineConfig(library())`, with
 * overrides only for what it really does differently (the issuer's CLI entry, the client's browser
 * bundle).
 *
 * @module
 */
import type { Options } from 'tsup';

/**
 * Options of a Node library build, with `overrides` applied on top.
 *
 * @example
 * ```ts
 * import { defineConfig } from 'tsup';
 * import { library } from '../../tsup.preset.js';
 *
 * export default defineConfig(library());
 * ```
 */
export function library(overrides: Options = {}): Options {
  return {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node22',
    platform: 'node',
    ...overrides,
  };
}
