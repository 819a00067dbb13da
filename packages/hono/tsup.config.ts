import { defineConfig } from 'tsup';
import { library, twin } from '../../tsup.preset.js';

export default defineConfig([
  // Node (`@hono/node-server`): the request is read from its IncomingMessage (node-request.ts).
  library(),
  // Bun, Deno, workerd, browsers and any other runtime (`exports` conditions): the standard Request only.
  library({
    entry: { 'web/index': 'src/index.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    target: 'es2022',
    platform: 'neutral',
    esbuildPlugins: [twin('node-request.js', new URL('./src/node-request-web.ts', import.meta.url))],
  }),
]);
