/**
 * The API's settings from environment variables, shared by the Node and Bun servers:
 *
 * - `ISSUER` (required): issuer identifier of the authorization server.
 * - `AUDIENCE` (required): resource indicator of this API.
 * - `JWKS_URI`: JWKS URL (default: discovered from the issuer).
 * - `ALLOW_INSECURE_HTTP=1`: allow `http:` issuer URLs beyond loopback (never in production).
 * - `PORT`: default 4001. `HOST`: default 127.0.0.1.
 *
 * @module
 */
import type { AppOptions } from './app.ts';

/** Read the settings, or explain what is missing and exit. */
export function readConfig(
  env: Record<string, string | undefined>,
): AppOptions & { port: number; host: string } {
  const { ISSUER, AUDIENCE, JWKS_URI, ALLOW_INSECURE_HTTP, PORT = '4001', HOST = '127.0.0.1' } = env;
  if (!ISSUER || !AUDIENCE) {
    console.error('Set ISSUER and AUDIENCE (and optionally JWKS_URI, PORT, HOST), e.g.');
    console.error('  ISSUER=https://id.example.com/oidc AUDIENCE=https://api.example.com pnpm start');
    process.exit(1);
  }
  return {
    issuer: ISSUER,
    audience: AUDIENCE,
    ...(JWKS_URI ? { jwksUri: JWKS_URI } : {}),
    ...(ALLOW_INSECURE_HTTP === '1' ? { allowInsecureHttp: true } : {}),
    port: Number(PORT),
    host: HOST,
  };
}
