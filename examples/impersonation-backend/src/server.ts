/**
 * Start the backend from environment variables:
 *
 * - `GATEHOUSE_ENDPOINT` (required): base URL of the Gatehouse issuer, e.g. `http://127.0.0.1:3001`.
 * - `AUDIENCE` (required): this backend's resource indicator.
 * - `CLIENT_ID`, `CLIENT_SECRET` (required): its `MachineToMachine` application.
 * - `CORS_ORIGINS`: comma-separated browser origins allowed to call (the support console).
 * - `PORT`: default 4100. `HOST`: default 127.0.0.1.
 *
 * Run with Node 24's type stripping: `node src/server.ts` (or `pnpm start`).
 *
 * @module
 */
import { createBackend } from './app.ts';

const { GATEHOUSE_ENDPOINT, AUDIENCE, CLIENT_ID, CLIENT_SECRET, CORS_ORIGINS = '' } = process.env;
const { PORT = '4100', HOST = '127.0.0.1' } = process.env;
if (!GATEHOUSE_ENDPOINT || !AUDIENCE || !CLIENT_ID || !CLIENT_SECRET) {
  console.error(
    'Set GATEHOUSE_ENDPOINT, AUDIENCE, CLIENT_ID and CLIENT_SECRET (and optionally CORS_ORIGINS, PORT, HOST).',
  );
  process.exit(1);
}

const app = createBackend({
  endpoint: GATEHOUSE_ENDPOINT,
  audience: AUDIENCE,
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  corsOrigins: CORS_ORIGINS.split(',').filter((origin) => origin !== ''),
});
const server = app.listen(Number(PORT), HOST, (error?: Error) => {
  if (error) {
    console.error(`Could not listen on ${HOST}:${PORT}: ${error.message}`);
    process.exit(1);
  }
  console.log(`impersonation backend listening on http://${HOST.includes(':') ? `[${HOST}]` : HOST}:${PORT}`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
