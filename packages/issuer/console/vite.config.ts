/**
 * Build of the admin console (run by the issuer's `build` script after tsup): Preact through Vite's
 * own JSX transform, into `dist/console` with content-hashed names. `@gatehouse/client` is bundled
 * from its TypeScript source, as the tests resolve it (see vitest.shared.ts): the client package
 * itself depends on the issuer for its tests, so a package dependency would be a cycle.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: './',
  logLevel: 'warn',
  resolve: { alias: { '@gatehouse/client': here('../../client/src/index.ts') } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('../dist/console'),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
