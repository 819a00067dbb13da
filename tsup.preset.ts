/**
 * The one tsup build every package shares: `src/index.ts` to ESM and CommonJS with `.d.ts` files and
 * source maps, for Node 22. A package's `tsup.config.ts` is `defineConfig(library())`, with
 * overrides only for what it really does differently (the issuer's CLI entry, the client's browser
 * bundle).
 *
 * @module
 */
import { fileURLToPath } from 'node:url';
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

/**
 * An esbuild plugin for a package's build for runtimes other than Node: every import of the module
 * `name` (`platform.js`) resolves to its twin (a file URL), a module with the same exports and no
 * Node built-in or Node-only import.
 *
 * @example
 * ```ts
 * library({ esbuildPlugins: [twin('node-request.js', new URL('./src/node-request-web.ts', import.meta.url))] });
 * ```
 */
export function twin(name: string, replacement: URL): NonNullable<Options['esbuildPlugins']>[number] {
  const path = fileURLToPath(replacement);
  const filter = new RegExp(`(?:^|/)${name.replaceAll('.', '\\.')}$`);
  return {
    name: `gatehouse-twin-${name}`,
    setup(build) {
      build.onResolve({ filter }, () => ({ path }));
    },
  };
}
