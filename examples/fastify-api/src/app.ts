/**
 * The orders API on Fastify 5, protected by `@gatehouse/fastify`:
 *
 * - `GET /health`: no token needed.
 * - `GET /orders`: scope `read:orders`.
 * - `POST /orders`: scope `write:orders`, JSON body `{ item, quantity }` checked by a JSON Schema (400 JSON when invalid).
 * - `DELETE /orders/:id`: scope `write:orders`, and never under impersonation (403 `access_denied`).
 *
 * Requests made under impersonation are written to the audit log, refused ones included.
 *
 * @module
 */
import { toAuditRecord } from '@gatehouse/core';
import { auditImpersonation, type Logger } from '@gatehouse/example-shared/audit';
import { type OrderInput, OrderStore, ownerOf } from '@gatehouse/example-shared/orders';
import gatehouse from '@gatehouse/fastify';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { orderInputSchema } from './order-schema.ts';

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

const pathOf = (request: FastifyRequest): string => request.url.split('?', 1)[0] ?? '/';

/** The verified token; `app.requireAuth` ran before every handler that calls this. */
const authOf = (request: FastifyRequest) => {
  if (request.auth === undefined) throw new Error('app.requireAuth must run first');
  return request.auth;
};

/**
 * Build the orders API. Each call has its own in-memory store and its own verifier (key cache).
 * Options are checked here: a bad one rejects with a `TypeError` naming it.
 *
 * @example
 * ```ts
 * import { createApp } from './app.ts';
 *
 * const app = await createApp({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' });
 * await app.listen({ port: 4002 });
 * ```
 */
export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  const { logger = console, issuer, audience, jwksUri, fetch } = options;
  const store = new OrderStore();
  // No type coercion and no silent removal of unknown fields: a body is valid as sent, or refused.
  const app = Fastify({
    bodyLimit: 16 * 1024,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
  });

  await app.register(gatehouse, {
    issuer,
    audience,
    ...(jwksUri === undefined ? {} : { jwksUri }),
    ...(fetch === undefined ? {} : { fetch }),
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not_found' }));

  // Schema failures, malformed JSON and oversized bodies become JSON 4xx; anything else a JSON 500.
  // Set before the routes are registered, so that the /orders context inherits it.
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status =
      error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500
        ? error.statusCode
        : 500;
    if (status === 500) {
      logger.error(JSON.stringify({ event: 'error', message: error.message }));
      return reply.code(500).send({ error: 'server_error' });
    }
    const description =
      error.validation !== undefined
        ? error.message
        : status === 400
          ? 'body is not valid JSON'
          : 'the request body was refused';
    return reply.code(status).send({ error: 'invalid_request', error_description: description });
  });

  app.get('/health', async () => ({ status: 'ok' }));

  await app.register(
    async (orders) => {
      // Every route below: authenticate (onRequest, before the body is read), then audit impersonation.
      orders.addHook('onRequest', orders.requireAuth);
      orders.addHook('onRequest', async (request) =>
        auditImpersonation(logger, request.auth, request.method, pathOf(request)),
      );

      orders.get('/', { onRequest: orders.requireScope('read:orders') }, async (request) => ({
        orders: store.list(ownerOf(authOf(request))),
      }));

      orders.post<{ Body: OrderInput }>(
        '/',
        { onRequest: orders.requireScope('write:orders'), schema: { body: orderInputSchema } },
        async (request, reply) => {
          const auth = authOf(request);
          const owner = ownerOf(auth);
          const input = { item: request.body.item.trim(), quantity: request.body.quantity };
          const order = store.create(owner, input, toAuditRecord(auth).actor ?? owner);
          return reply.code(201).header('location', `/orders/${order.id}`).send(order);
        },
      );

      // Deleting is irreversible: a support engineer acting for the customer may not do it.
      orders.delete<{ Params: { id: string } }>(
        '/:id',
        { onRequest: orders.requireScope('write:orders', { allowDelegation: false }) },
        async (request, reply) => {
          if (!store.delete(ownerOf(authOf(request)), request.params.id)) {
            return reply.code(404).send({ error: 'not_found' });
          }
          return reply.code(204).send();
        },
      );
    },
    { prefix: '/orders' },
  );

  return app;
}
