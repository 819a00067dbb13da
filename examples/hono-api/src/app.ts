/**
 * The orders API on Hono 4, protected by `@gatehouse/hono` — the same API as examples/express-api,
 * runnable on Node (server-node.ts), Bun (server-bun.ts) and Cloudflare workerd (examples/worker-api):
 *
 * - `GET /health`: no token needed.
 * - `GET /orders`: scope `read:orders`.
 * - `POST /orders`: scope `write:orders`, JSON body `{ item, quantity }` (400 JSON when invalid).
 * - `DELETE /orders/:id`: scope `write:orders`, and never under impersonation (403 `access_denied`).
 *
 * Requests made under impersonation are written to the audit log, refused ones included.
 *
 * @module
 */
import { toAuditRecord } from '@gatehouse/core';
import { auditImpersonation, type Logger } from '@gatehouse/example-shared/audit';
import { OrderStore, ownerOf, parseOrderInput } from '@gatehouse/example-shared/orders';
import { requireAuth, requireScope } from '@gatehouse/hono';
import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Issuer identifier of the authorization server (`iss`). */
  issuer: string;
  /** Resource indicator of this API (`aud`). */
  audience: string | string[];
  /** JWKS URL. Default: discovered from the issuer's metadata. */
  jwksUri?: string;
  /** `fetch` for discovery and the JWKS (tests pass `issuer.fetch` from `@gatehouse/testing`). */
  fetch?: typeof fetch;
  /** Allow `http:` issuer and JWKS URLs on non-loopback hosts (never in production). Default `false`. */
  allowInsecureHttp?: boolean;
  /** Where audit and error lines go. Default `console`. */
  logger?: Logger;
}

/** The verified token; `requireAuth()` ran before every handler that calls this. */
const authOf = (c: Context) => {
  const auth = c.get('auth');
  if (auth === undefined) throw new Error('requireAuth() must run first');
  return auth;
};

/**
 * Build the orders API. Each call has its own in-memory store and its own verifier (key cache).
 *
 * @example
 * ```ts
 * import { createApp } from './app.ts';
 *
 * const app = createApp({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' });
 * export default app; // Bun, Deno, Workers: app.fetch
 * ```
 */
export function createApp(options: AppOptions): Hono {
  const { logger = console, issuer, audience, jwksUri, fetch, allowInsecureHttp } = options;
  const store = new OrderStore();
  const app = new Hono();

  app.get('/health', (c) => c.json({ status: 'ok' }));

  app.use(
    '/orders/*',
    requireAuth({
      issuer,
      audience,
      ...(jwksUri === undefined ? {} : { jwksUri }),
      ...(fetch === undefined ? {} : { fetch }),
      ...(allowInsecureHttp === undefined ? {} : { allowInsecureHttp }),
    }),
    async (c, next) => {
      auditImpersonation(logger, c.get('auth'), c.req.method, c.req.path);
      await next();
    },
  );

  app.get('/orders', requireScope('read:orders'), (c) => c.json({ orders: store.list(ownerOf(authOf(c))) }));

  app.post('/orders', requireScope('write:orders'), async (c) => {
    const body = await c.req.json().catch(() => undefined);
    if (body === undefined)
      return c.json({ error: 'invalid_request', error_description: 'body is not valid JSON' }, 400);
    const input = parseOrderInput(body);
    if (!input.ok) return c.json({ error: 'invalid_request', error_description: input.error }, 400);
    const auth = authOf(c);
    const owner = ownerOf(auth);
    const order = store.create(owner, input.value, toAuditRecord(auth).actor ?? owner);
    return c.json(order, 201, { location: `/orders/${order.id}` });
  });

  // Deleting is irreversible: a support engineer acting for the customer may not do it.
  app.delete('/orders/:id', requireScope('write:orders', { allowDelegation: false }), (c) => {
    if (!store.delete(ownerOf(authOf(c)), c.req.param('id'))) return c.json({ error: 'not_found' }, 404);
    return c.body(null, 204);
  });

  app.notFound((c) => c.json({ error: 'not_found' }, 404));

  // Auth failures are HTTPExceptions carrying the RFC 6750 answer; anything else is a JSON 500, never HTML.
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse();
    logger.error(JSON.stringify({ event: 'error', message: err.message }));
    return c.json({ error: 'server_error' }, 500);
  });

  return app;
}
