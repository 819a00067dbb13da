/**
 * One Hono server under test (hono-http.mjs bundles it per runtime), serving `GET /orders` as the
 * configuration in BENCH_SERVER (JSON) says (hono-app.mjs); prints `READY <port>`. Node:
 * @hono/node-server; Bun: Bun.serve. Exits when its stdin closes (the benchmark that started it is gone).
 */
import { exitWithParent } from '../http/lib/exit-with-parent.mjs';
import { createApp } from './hono-app.mjs';

const app = await createApp(JSON.parse(globalThis.process?.env?.BENCH_SERVER ?? '{}'));

if (typeof Bun !== 'undefined') {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app.fetch });
  console.log(`READY ${server.port}`);
} else {
  const { serve } = await import('@hono/node-server');
  serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => console.log(`READY ${info.port}`));
}
exitWithParent();
