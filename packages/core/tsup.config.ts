import { defineConfig } from 'tsup';
import { library, twin } from '../../tsup.preset.js';

export default defineConfig([
  // Node: node:crypto, ESM and CJS; its entry adds the Node-only exports (node.ts) to the shared API.
  library({ entry: { index: 'src/node.ts' } }),
  // Bun, Deno, workerd, browsers and any other runtime (`exports` conditions): WebCrypto.
  library({
    entry: { 'web/index': 'src/index.ts' },
    // CJS too, for `require('@gatehouse/core/web')`.
    format: ['esm', 'cjs'],
    dts: true,
    clean: false,
    target: 'es2022',
    platform: 'neutral',
    // Every import of the platform module resolves to its WebCrypto twin (no Node built-in).
    esbuildPlugins: [twin('platform.js', new URL('./src/internal/platform-web.ts', import.meta.url))],
  }),
]);
