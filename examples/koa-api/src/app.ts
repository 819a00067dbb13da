/**
 * The orders API on Koa 3 with `@koa/router`, protected by `@gatehouse/koa`:
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
import { requireAuth, requireScope } from '@gatehouse/koa';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';

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
  /** Where audit and error lines go. Default `console`. */
  logger?: Logger;
}

/** The verified token; `requireAuth()` ran before every handler that calls this. */
const authOf = (ctx: Context) => {
  if (ctx.state.auth === undefined) throw new Error('requireAuth() must run first');
  return ctx.state.auth;
};

/** Body-parser failures (malformed JSON, too large) become JSON 4xx, anything else a JSON 500: never text or HTML. */
const jsonErrors =
  (logger: Logger): Middleware =>
  async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const { status, type } = (err ?? {}) as { status?: unknown; type?: unknown };
      if (typeof status === 'number' && status >= 400 && status < 500) {
        // co-body throws JSON.parse's SyntaxError (status 400) for malformed JSON.
        const malformed = type === 'entity.parse.failed' || err instanceof SyntaxError;
        const description = malformed ? 'body is not valid JSON' : 'the request body was refused';
        ctx.status = status;
        ctx.body = { error: 'invalid_request', error_description: description };
        return;
      }
      logger.error(
        JSON.stringify({ event: 'error', message: err instanceof Error ? err.message : String(err) }),
      );
      ctx.status = 500;
      ctx.body = { error: 'server_error' };
    }
  };

/**
 * Build the orders API. Each call has its own in-memory store and its own verifier (key cache).
 *
 * @example
 * ```ts
 * import { createApp } from './app.ts';
 *
 * const app = createApp({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' });
 * app.listen(4003);
 * ```
 */
export function createApp(options: AppOptions): Koa {
  const { logger = console, issuer, audience, jwksUri, fetch } = options;
  const store = new OrderStore();
  const app = new Koa();
  const router = new Router();

  // Authenticate first, then audit impersonation; the body is parsed only after both (and the scope check).
  const auth = requireAuth({
    issuer,
    audience,
    ...(jwksUri === undefined ? {} : { jwksUri }),
    ...(fetch === undefined ? {} : { fetch }),
  });
  const audit: Middleware = async (ctx, next) => {
    auditImpersonation(logger, ctx.state.auth, ctx.method, ctx.path);
    await next();
  };
  const json = bodyParser({ enableTypes: ['json'], jsonLimit: '16kb' });

  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/orders', auth, audit, requireScope('read:orders'), (ctx) => {
    ctx.body = { orders: store.list(ownerOf(authOf(ctx))) };
  });

  router.post('/orders', auth, audit, requireScope('write:orders'), json, (ctx) => {
    const input = parseOrderInput(ctx.request.body);
    if (!input.ok) {
      ctx.status = 400;
      ctx.body = { error: 'invalid_request', error_description: input.error };
      return;
    }
    const auth = authOf(ctx);
    const owner = ownerOf(auth);
    const order = store.create(owner, input.value, toAuditRecord(auth).actor ?? owner);
    ctx.status = 201;
    ctx.set('location', `/orders/${order.id}`);
    ctx.body = order;
  });

  // Deleting is irreversible: a support engineer acting for the customer may not do it.
  router.delete(
    '/orders/:id',
    auth,
    audit,
    requireScope('write:orders', { allowDelegation: false }),
    (ctx) => {
      if (!store.delete(ownerOf(authOf(ctx)), String(ctx.params.id))) {
        ctx.status = 404;
        ctx.body = { error: 'not_found' };
        return;
      }
      ctx.status = 204;
    },
  );

  app.use(jsonErrors(logger));
  app.use(router.routes());
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { error: 'not_found' };
  });
  return app;
}
