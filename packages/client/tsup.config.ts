import { defineConfig } from 'tsup';

export default defineConfig([
  // Node and bundlers: ESM + CJS with types; oauth4webapi stays a dependency.
  {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    // The browser build below writes dist/browser at the same time: leave it alone.
    clean: ['!browser/**'],
    target: 'es2022',
    platform: 'neutral',
  },
  // Plain HTML pages: one self-contained file each (oauth4webapi bundled), as an ES module
  // (`dist/browser/index.js`) and as a classic script exposing `GatehouseClient` (`index.global.js`).
  {
    entry: { index: 'src/index.ts' },
    outDir: 'dist/browser',
    format: ['esm', 'iife'],
    globalName: 'GatehouseClient',
    noExternal: ['oauth4webapi'],
    sourcemap: true,
    clean: true,
    minify: true,
    target: 'es2022',
    platform: 'browser',
  },
]);
