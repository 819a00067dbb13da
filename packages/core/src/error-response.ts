/**
 * `errorResponse()`: any `AuthError` as the RFC 6750 `Response` the Node adapters send — the status,
 * `WWW-Authenticate` (with the DPoP challenges of the verifier's mode), `DPoP-Nonce`, `Retry-After`,
 * and the JSON body `{ error, error_description }` — for Bun.serve, Deno.serve, Workers, Next.js and Hono.
 *
 * @module
 */
import type { AuthError } from './errors.js';

/** The content type of every error body, as Express, Fastify and Koa send it. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The HTTP response for an authentication or authorization failure.
 *
 * @example
 * ```ts
 * import { createVerifier, errorResponse, isAuthError } from '@gatehouse/core';
 *
 * const verifier = createVerifier({ issuer: 'https://id.example.com', audience: 'https://api.example.com' });
 * Bun.serve({
 *   async fetch(request) {
 *     try {
 *       const auth = await verifier.authenticate(request, { scopes: 'read:orders' });
 *       return Response.json({ orders: [], user: auth.subject });
 *     } catch (error) {
 *       if (isAuthError(error)) return errorResponse(error);
 *       throw error;
 *     }
 *   },
 * });
 * ```
 */
export function errorResponse(error: AuthError): Response {
  return new Response(JSON.stringify(error.toJSON()), {
    status: error.status,
    headers: { ...error.headers, 'content-type': JSON_TYPE },
  });
}
