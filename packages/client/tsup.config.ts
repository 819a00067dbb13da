import { defineConfig } from 'tsup';
import { library } from '../../tsup.preset.js';

export default defineConfig([
  // Node and bundlers: ESM + CJS with types; oauth4webapi stays a dependency. Platform-neutral, so
  // browsers' bundlers take it too. The browser build below writes dist/browser at the same time:
  // leave it alone.
  library({ clean: ['!browser/**'], target: 'es2022', platform: 'neutral' }),
  // Plain HTML pages: one self-contained file each (oauth4webapi bundled), as an ES module
  // (`dist/browser/index.js`) and as a classic script exposing `GatehouseClient` (`index.global.js`).
  library({
    entry: { index: 'src/index.ts' },
    outDir: 'dist/browser',
    format: ['esm', 'iife'],
    globalName: 'GatehouseClient',
    noExternal: ['oauth4webapi'],
    dts: false,
    minify: true,
    target: 'es2022',
    platform: 'browser',
  }),
]);
