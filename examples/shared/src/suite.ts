/**
 * The orders API's behaviour, written once and run by every example against its own framework: each
 * example's test starts a fresh app on loopback and hands it to {@link describeOrdersApi}, which calls it
 * with real HTTP (`fetch`) — scopes, 401/403 answers, the audit line under impersonation (never the
 * token), JSON errors for bad bodies, and the impersonation ban on `DELETE`.
 *
 * @module
 */
import { createTestIssuer } from '@gatehouse/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from './audit.ts';

/** An app started by the example's test. */
export interface StartedApp {
  /** Its base URL on loopback, e.g. `http://127.0.0.1:41234`. */
  readonly base: string;
  /** Stop it (closing open connections). */
  close(): Promise<void>;
}

/** The `error_description` fragments expected for each refused `POST /orders` body. */
export interface RefusalTexts {
  readonly missingQuantity: string;
  readonly extraField: string;
  readonly array: string;
  readonly item: string;
}

/** Options of {@link describeOrdersApi}. */
export interface OrdersApiSuiteOptions {
  /** Start a fresh app (own store and key cache) with these verifier options and logger, on loopback. */
  start(options: {
    issuer: string;
    audience: string | string[];
    fetch: typeof fetch;
    logger: Logger;
  }): Promise<StartedApp>;
  /** Whether the app refuses bodies over 16 KiB with 413 JSON. Default `true`. */
  bodyLimit?: boolean;
  /**
   * Whether the app checks the token before reading the body. Default `true`; NestJS parses bodies in
   * its platform's middleware, before any guard runs, so it answers a malformed body with 400 first.
   */
  authBeforeBody?: boolean;
  /** Refusal texts where the app validates differently (Fastify's JSON Schema). */
  refusals?: Partial<RefusalTexts>;
}

/** The refusal texts of `parseOrderInput` (the examples that validate bodies with it). */
const PARSE_REFUSALS: RefusalTexts = Object.freeze({
  missingQuantity: '"quantity"',
  extraField: 'only "item" and "quantity"',
  array: 'JSON object',
  item: '"item"',
});

/** A JSON body the API answers with, with the members these tests read. */
interface ApiBody {
  id: string;
  orders: unknown[];
  owner: string;
  error: string;
  error_description: string;
  [key: string]: unknown;
}

const json = (res: Response) => res.json() as Promise<ApiBody>;

/**
 * Declare the orders API's tests (as `describe` blocks) against apps started by `options.start`.
 *
 * @example
 * ```ts
 * describeOrdersApi({
 *   async start(options) {
 *     const server = createApp(options).listen(0, '127.0.0.1');
 *     await once(server, 'listening');
 *     return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: async () => server.close() };
 *   },
 * });
 * ```
 */
export function describeOrdersApi(options: OrdersApiSuiteOptions): void {
  const refusals = { ...PARSE_REFUSALS, ...options.refusals };
  const issuerPromise = createTestIssuer();
  const started: StartedApp[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((app) => app.close()));
  });

  /** A fresh app whose logger lines are kept in `lines`, and `call` to send it requests. */
  async function setup() {
    const issuer = await issuerPromise;
    const lines: string[] = [];
    const logger = { info: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const app = await options.start({ ...issuer.verifierOptions(), fetch: issuer.fetch, logger });
    started.push(app);
    const call = (method: string, path: string, token?: string, body?: unknown) =>
      fetch(`${app.base}${path}`, {
        method,
        headers: {
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
    return { issuer, lines, call };
  }

  describe('GET /orders', () => {
    it('answers 200 with the caller’s orders for a token with read:orders', async () => {
      const { issuer, call, lines } = await setup();
      const res = await call('GET', '/orders', await issuer.sign({ scope: 'read:orders' }));
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ orders: [] });
      expect(lines).toEqual([]);
    });

    it('refuses a token without read:orders with 403 insufficient_scope', async () => {
      const { issuer, call } = await setup();
      const res = await call('GET', '/orders', await issuer.sign({ scope: 'write:orders' }));
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    });

    it('answers 401 with a bare challenge and no error when there is no token', async () => {
      const res = await (await setup()).call('GET', '/orders');
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
      expect(res.headers.get('www-authenticate')).not.toContain('error=');
    });

    it('answers 401 invalid_token for an expired token', async () => {
      const { issuer, call } = await setup();
      const res = await call('GET', '/orders', await issuer.tokens.expired({ scope: 'read:orders' }));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await json(res)).toMatchObject({ error: 'invalid_token' });
    });

    it('serves a customer’s orders under impersonation and logs one audit line with customer and actor', async () => {
      const { issuer, call, lines } = await setup();
      const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
      expect((await call('GET', '/orders?page=1', token)).status).toBe(200);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        event: 'impersonation',
        method: 'GET',
        path: '/orders',
        subject: 'customer-42',
        actor: 'support-7',
        delegated: true,
      });
      expect(lines[0]).not.toContain(token);
      expect(lines[0]).not.toContain(token.split('.')[2]);
    });
  });

  describe('POST /orders', () => {
    it('creates an order for the token’s subject (201), visible to that subject only', async () => {
      const { issuer, call } = await setup();
      const token = await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' });
      const created = await call('POST', '/orders', token, { item: 'coffee', quantity: 2 });
      expect(created.status).toBe(201);
      const order = await json(created);
      expect(order).toMatchObject({
        item: 'coffee',
        quantity: 2,
        owner: 'customer-42',
        createdBy: 'customer-42',
      });
      expect(created.headers.get('location')).toBe(`/orders/${order.id}`);
      expect((await json(await call('GET', '/orders', token))).orders).toEqual([order]);
      const other = await issuer.sign({ sub: 'customer-7', scope: 'read:orders' });
      expect((await json(await call('GET', '/orders', other))).orders).toEqual([]);
    });

    it('records the support engineer as creator of an order placed under impersonation', async () => {
      const { issuer, call, lines } = await setup();
      const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
      const res = await call('POST', '/orders', token, { item: 'tea', quantity: 1 });
      expect(res.status).toBe(201);
      expect(await json(res)).toMatchObject({ owner: 'customer-42', createdBy: 'support-7' });
      expect(JSON.parse(lines[0]!)).toMatchObject({
        method: 'POST',
        subject: 'customer-42',
        actor: 'support-7',
      });
    });

    it('needs write:orders', async () => {
      const { issuer, call } = await setup();
      const token = await issuer.sign({ scope: 'read:orders' });
      const res = await call('POST', '/orders', token, { item: 'coffee', quantity: 1 });
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toContain('scope="write:orders"');
    });

    it.each([
      ['malformed JSON', '{"item": "coffee",', 'body is not valid JSON'],
      ['a missing quantity', { item: 'coffee' }, refusals.missingQuantity],
      ['a zero quantity', { item: 'coffee', quantity: 0 }, refusals.missingQuantity],
      ['a string quantity', { item: 'coffee', quantity: '2' }, refusals.missingQuantity],
      ['an empty item', { item: ' ', quantity: 1 }, refusals.item],
      ['an extra field', { item: 'coffee', quantity: 1, owner: 'someone-else' }, refusals.extraField],
      ['an array', [{ item: 'coffee', quantity: 1 }], refusals.array],
    ])('answers 400 JSON invalid_request for %s', async (_name, body, description) => {
      const { issuer, call, lines } = await setup();
      const res = await call('POST', '/orders', await issuer.sign({ scope: 'write:orders' }), body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const answer = await json(res);
      expect(answer.error).toBe('invalid_request');
      expect(answer.error_description).toContain(description);
      expect(lines).toEqual([]);
    });

    // Declared only for apps with a body limit: a skipped test would fail CI.
    if (options.bodyLimit ?? true) {
      it('answers 413 JSON, not HTML, for a body over 16 KiB', async () => {
        const { issuer, call } = await setup();
        const token = await issuer.sign({ scope: 'write:orders' });
        const res = await call('POST', '/orders', token, { item: 'x'.repeat(20_000), quantity: 1 });
        expect(res.status).toBe(413);
        expect(await json(res)).toMatchObject({ error: 'invalid_request' });
      });
    }

    if (options.authBeforeBody ?? true) {
      it('refuses an anonymous request before reading its body', async () => {
        const res = await (await setup()).call('POST', '/orders', undefined, '{not json');
        expect(res.status).toBe(401);
      });
    }
  });

  describe('DELETE /orders/:id', () => {
    it('deletes the caller’s order (204), then 404', async () => {
      const { issuer, call } = await setup();
      const token = await issuer.sign({ sub: 'customer-42', scope: 'write:orders' });
      const { id } = await json(await call('POST', '/orders', token, { item: 'tea', quantity: 1 }));
      expect((await call('DELETE', `/orders/${id}`, token)).status).toBe(204);
      const again = await call('DELETE', `/orders/${id}`, token);
      expect(again.status).toBe(404);
      expect(await json(again)).toEqual({ error: 'not_found' });
    });

    it('refuses impersonation with 403 access_denied, logs the attempt and keeps the order', async () => {
      const { issuer, call, lines } = await setup();
      const own = await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' });
      const { id } = await json(await call('POST', '/orders', own, { item: 'tea', quantity: 1 }));
      const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
      const res = await call('DELETE', `/orders/${id}`, token);
      expect(res.status).toBe(403);
      expect(await json(res)).toMatchObject({ error: 'access_denied' });
      expect(JSON.parse(lines[0]!)).toMatchObject({
        method: 'DELETE',
        subject: 'customer-42',
        actor: 'support-7',
      });
      expect((await json(await call('GET', '/orders', own))).orders).toHaveLength(1);
    });
  });

  describe('other routes', () => {
    it('GET /health needs no token', async () => {
      const res = await (await setup()).call('GET', '/health');
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ status: 'ok' });
    });

    it('answers unknown routes with JSON 404, without asking for a token', async () => {
      const res = await (await setup()).call('GET', '/nope');
      expect(res.status).toBe(404);
      expect(await json(res)).toEqual({ error: 'not_found' });
    });
  });
}
