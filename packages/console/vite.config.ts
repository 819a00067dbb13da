/**
 * Build of the admin console: Preact through Vite's own JSX transform, into `dist/` with
 * content-hashed names (`assets/index-3f2a….js`). The issuer's build copies `dist/` into its own
 * `dist/console` and serves it (packages/issuer/scripts/copy-console.mjs, src/console/assets.ts).
 *
 * `@gatehouse/client` is bundled from its TypeScript source, as the tests resolve it (see
 * vitest.shared.ts), so this build waits for no other package's (turbo.json: `dependsOn: []`): the
 * issuer's build waits for this one, and the client's build waits for the issuer's (its tests run an
 * issuer), so waiting for the client's build would be a cycle.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: './',
  logLevel: 'warn',
  resolve: { alias: { '@gatehouse/client': here('../client/src/index.ts') } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('dist'),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
