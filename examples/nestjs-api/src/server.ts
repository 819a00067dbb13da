/**
 * Start the orders API from environment variables:
 *
 * - `ISSUER` (required): issuer identifier of the authorization server.
 * - `AUDIENCE` (required): resource indicator of this API.
 * - `JWKS_URI`: JWKS URL (default: discovered from the issuer).
 * - `PLATFORM`: `express` (default) or `fastify`.
 * - `PORT`: default 4004. `HOST`: default 127.0.0.1.
 *
 * Compiled by `pnpm build` (tsup), then run: `node dist/server.js` (or `pnpm start`).
 *
 * @module
 */
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';

const { ISSUER, AUDIENCE, JWKS_URI, PLATFORM = 'express', PORT = '4004', HOST = '127.0.0.1' } = process.env;
if (!ISSUER || !AUDIENCE || (PLATFORM !== 'express' && PLATFORM !== 'fastify')) {
  console.error(
    'Set ISSUER and AUDIENCE (and optionally JWKS_URI, PLATFORM=express|fastify, PORT, HOST), e.g.',
  );
  console.error('  ISSUER=https://id.example.com/oidc AUDIENCE=https://api.example.com pnpm start');
  process.exit(1);
}

const app = await createApp({
  issuer: ISSUER,
  audience: AUDIENCE,
  platform: PLATFORM,
  ...(JWKS_URI ? { jwksUri: JWKS_URI } : {}),
});
try {
  await app.listen(Number(PORT), HOST);
} catch (error) {
  console.error(`Could not listen on ${HOST}:${PORT}: ${(error as Error).message}`);
  process.exit(1);
}
const { port } = app.getHttpServer().address() as AddressInfo;
console.log(
  `orders API (NestJS on ${PLATFORM}) listening on http://${HOST.includes(':') ? `[${HOST}]` : HOST}:${port}`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => app.close().then(() => process.exit(0)));
}
