/**
 * The orders API on Express 5, protected by `@gatehouse/express`:
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
import { type IntrospectionOptions, toAuditRecord } from '@gatehouse/core';
import { auditImpersonation, type Logger } from '@gatehouse/example-shared/audit';
import { OrderStore, ownerOf, parseOrderInput } from '@gatehouse/example-shared/orders';
import { requireAuth, requireScope } from '@gatehouse/express';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';

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
  /** RFC 7662 introspection, e.g. `mode: 'delegated'` so an impersonation ended at the issuer is refused at once. */
  introspection?: IntrospectionOptions;
  /** Where audit and error lines go. Default `console`. */
  logger?: Logger;
}

const pathOf = (req: Request): string => req.originalUrl.split('?', 1)[0] ?? '/';

/** The verified token; `requireAuth()` ran before every handler that calls this. */
const authOf = (req: Request) => {
  if (req.auth === undefined) throw new Error('requireAuth() must run first');
  return req.auth;
};

/**
 * Build the orders API. Each call has its own in-memory store and its own verifier (key cache).
 *
 * @example
 * ```ts
 * import { createApp } from './app.ts';
 *
 * const app = createApp({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' });
 * app.listen(4001);
 * ```
 */
export function createApp(options: AppOptions): Express {
  const { logger = console, issuer, audience, jwksUri, fetch, introspection } = options;
  const store = new OrderStore();
  const app = express();
  app.disable('x-powered-by');

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const audit: RequestHandler = (req, _res, next) => {
    auditImpersonation(logger, req.auth, req.method, pathOf(req));
    next();
  };

  // Authenticate before the body is parsed: an anonymous request never gets its body read.
  const orders = express.Router();
  orders.use(
    requireAuth({
      issuer,
      audience,
      ...(jwksUri === undefined ? {} : { jwksUri }),
      ...(fetch === undefined ? {} : { fetch }),
      ...(introspection === undefined ? {} : { introspection }),
    }),
    audit,
    express.json({ limit: '16kb' }),
  );

  orders.get('/', requireScope('read:orders'), (req, res) => {
    res.json({ orders: store.list(ownerOf(authOf(req))) });
  });

  orders.post('/', requireScope('write:orders'), (req, res) => {
    const input = parseOrderInput(req.body);
    if (!input.ok) {
      res.status(400).json({ error: 'invalid_request', error_description: input.error });
      return;
    }
    const auth = authOf(req);
    const owner = ownerOf(auth);
    const order = store.create(owner, input.value, toAuditRecord(auth).actor ?? owner);
    res.status(201).location(`/orders/${order.id}`).json(order);
  });

  // Deleting is irreversible: a support engineer acting for the customer may not do it.
  orders.delete('/:id', requireScope('write:orders', { allowDelegation: false }), (req, res) => {
    if (!store.delete(ownerOf(authOf(req)), String(req.params.id))) {
      res.status(404).json({ error: 'not_found' });
      return;
    }
    res.status(204).end();
  });

  app.use('/orders', orders);

  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found' });
  });

  // Body-parser failures (malformed JSON, too large) become JSON 4xx, anything else a JSON 500: never HTML.
  const onError: ErrorRequestHandler = (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    const status =
      typeof err?.status === 'number' && err.status >= 400 && err.status < 500 ? err.status : 500;
    if (status === 500) {
      logger.error(
        JSON.stringify({ event: 'error', message: err instanceof Error ? err.message : String(err) }),
      );
      res.status(500).json({ error: 'server_error' });
      return;
    }
    const description =
      err?.type === 'entity.parse.failed' ? 'body is not valid JSON' : 'the request body was refused';
    res.status(status).json({ error: 'invalid_request', error_description: description });
  };
  app.use(onError);

  return app;
}
