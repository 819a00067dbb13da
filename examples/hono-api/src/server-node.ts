/**
 * Start the orders API on Node with `@hono/node-server` (settings: config.ts). Run with Node 24's type
 * stripping: `node src/server-node.ts` (or `pnpm start`).
 *
 * @module
 */
import { serve } from '@hono/node-server';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';

const { port, host, ...options } = readConfig(process.env);
const server = serve({ fetch: createApp(options).fetch, port, hostname: host }, (info) => {
  console.log(`orders API (Hono on Node) listening on http://${host}:${info.port}`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
