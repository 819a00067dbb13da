/**
 * Start the orders API from environment variables:
 *
 * - `ISSUER` (required): issuer identifier of the authorization server.
 * - `AUDIENCE` (required): resource indicator of this API.
 * - `JWKS_URI`: JWKS URL (default: discovered from the issuer).
 * - `PORT`: default 4003. `HOST`: default 127.0.0.1.
 *
 * Run with Node 24's type stripping: `node src/server.ts` (or `pnpm start`).
 *
 * @module
 */
import { createApp } from './app.ts';

const { ISSUER, AUDIENCE, JWKS_URI, PORT = '4003', HOST = '127.0.0.1' } = process.env;
if (!ISSUER || !AUDIENCE) {
  console.error('Set ISSUER and AUDIENCE (and optionally JWKS_URI, PORT, HOST), e.g.');
  console.error('  ISSUER=https://id.example.com/oidc AUDIENCE=https://api.example.com pnpm start');
  process.exit(1);
}

const app = createApp({ issuer: ISSUER, audience: AUDIENCE, ...(JWKS_URI ? { jwksUri: JWKS_URI } : {}) });
const server = app.listen(Number(PORT), HOST, () => {
  console.log(`orders API (Koa) listening on http://${HOST.includes(':') ? `[${HOST}]` : HOST}:${PORT}`);
});
server.on('error', (error) => {
  console.error(`Could not listen on ${HOST}:${PORT}: ${error.message}`);
  process.exit(1);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
