/**
 * Start the support console from environment variables:
 *
 * - `GATEHOUSE_ENDPOINT` (required): base URL of the Gatehouse issuer, e.g. `http://127.0.0.1:3001`.
 * - `CLIENT_ID` (required): the console's `SPA` application, with token exchange enabled and the
 *   redirect URI `{PUBLIC_URL}/callback`.
 * - `BACKEND_RESOURCE`, `BACKEND_URL` (required): the impersonation backend.
 * - `ORDERS_RESOURCE`, `ORDERS_URL` (required): the orders API.
 * - `PORT`: default 4200. `HOST`: default 127.0.0.1. `PUBLIC_URL`: default `http://{HOST}:{PORT}`.
 *
 * Run with Node 24's type stripping: `node src/server.ts` (or `pnpm start`).
 *
 * @module
 */
import { createServer } from 'node:http';
import { createConsoleHandler } from './app.ts';

const { GATEHOUSE_ENDPOINT, CLIENT_ID, BACKEND_RESOURCE, BACKEND_URL, ORDERS_RESOURCE, ORDERS_URL } =
  process.env;
const { PORT = '4200', HOST = '127.0.0.1' } = process.env;
if (
  !GATEHOUSE_ENDPOINT ||
  !CLIENT_ID ||
  !BACKEND_RESOURCE ||
  !BACKEND_URL ||
  !ORDERS_RESOURCE ||
  !ORDERS_URL
) {
  console.error(
    'Set GATEHOUSE_ENDPOINT, CLIENT_ID, BACKEND_RESOURCE, BACKEND_URL, ORDERS_RESOURCE and ORDERS_URL (and optionally PORT, HOST, PUBLIC_URL).',
  );
  process.exit(1);
}
const origin = process.env.PUBLIC_URL ?? `http://${HOST.includes(':') ? `[${HOST}]` : HOST}:${PORT}`;

const server = createServer(
  createConsoleHandler({
    origin,
    endpoint: GATEHOUSE_ENDPOINT,
    clientId: CLIENT_ID,
    backend: { resource: BACKEND_RESOURCE, url: BACKEND_URL },
    orders: { resource: ORDERS_RESOURCE, url: ORDERS_URL, scopes: ['read:orders'] },
  }),
);
server.on('error', (error) => {
  console.error(`Could not listen on ${HOST}:${PORT}: ${error.message}`);
  process.exit(1);
});
server.listen(Number(PORT), HOST, () => console.log(`support console on ${origin}/`));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
