import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';
import { library } from '../../tsup.preset.js';

/** Redirects every import of the platform module to its WebCrypto twin (no Node built-in). */
const webPlatform: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'gatehouse-web-platform',
  setup(build) {
    const web = fileURLToPath(new URL('./src/internal/platform-web.ts', import.meta.url));
    build.onResolve({ filter: /(?:^|\/)platform\.js$/ }, () => ({ path: web }));
  },
};

export default defineConfig([
  // Node: node:crypto, ESM and CJS, with the type declarations every build shares.
  library(),
  // Bun, Deno, workerd, browsers and any other runtime (`exports` conditions): WebCrypto.
  library({
    entry: { 'web/index': 'src/index.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    target: 'es2022',
    platform: 'neutral',
    esbuildPlugins: [webPlatform],
  }),
]);
