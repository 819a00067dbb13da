import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node22',
    platform: 'node',
    removeNodeProtocol: false,
    // import.meta.url (where the built console is, see src/console/assets.ts) in the CommonJS build.
    shims: true,
  },
  {
    entry: { cli: 'src/cli/index.ts' },
    format: ['esm'],
    sourcemap: true,
    clean: false,
    target: 'node22',
    platform: 'node',
    removeNodeProtocol: false,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
