import { defineConfig } from 'tsup';
import { library } from '../../tsup.preset.js';

// `node:` specifiers stay as written (node:sqlite has no bare name).
export default defineConfig([
  library({
    entry: { index: 'src/index.ts', webhooks: 'src/webhooks/signature.ts' },
    removeNodeProtocol: false,
    // import.meta.url (where the built console is, see src/console/assets.ts) in the CommonJS build.
    shims: true,
  }),
  // The gatehouse-issuer binary: ESM only, no types, next to the library (not cleaning it away).
  library({
    entry: { cli: 'src/cli/index.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    removeNodeProtocol: false,
    banner: { js: '#!/usr/bin/env node' },
  }),
]);
