import type { AddressInfo } from 'node:net';
import { createTestIssuer } from '@gatehouse/testing';
import type { INestApplication } from '@nestjs/common';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';

const issuer = await createTestIssuer();

/** The JSON bodies the API answers with. */
interface ApiBody {
  id: string;
  orders: unknown[];
  error: string;
  error_description: string;
}
const json = (res: Response) => res.json() as Promise<ApiBody>;
const apps: INestApplication[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A fresh app (own store and key cache) listening on loopback, whose logger lines are kept in `lines`. */
async function setup(platform: 'express' | 'fastify') {
  const lines: string[] = [];
  const logger = { info: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const app = await createApp({ ...issuer.verifierOptions(), fetch: issuer.fetch, logger, platform });
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const call = (method: string, path: string, token?: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  return { lines, call };
}

describe.each(['express', 'fastify'] as const)('orders API on NestJS (%s)', (platform) => {
  it('refuses a token without read:orders with 403 insufficient_scope', async () => {
    const { call } = await setup(platform);
    const token = await issuer.sign({ scope: 'write:orders' });
    const res = await call('GET', '/orders', token);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('answers 200 with the caller’s orders for a token with read:orders', async () => {
    const { call, lines } = await setup(platform);
    const res = await call('GET', '/orders', await issuer.sign({ scope: 'read:orders' }));
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ orders: [] });
    expect(lines).toEqual([]);
  });

  it('answers 401 with a bare challenge and no error when there is no token', async () => {
    const res = await (await setup(platform)).call('GET', '/orders');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
    expect(res.headers.get('www-authenticate')).not.toContain('error=');
  });

  it('answers 401 invalid_token for an expired token', async () => {
    const { call } = await setup(platform);
    const res = await call('GET', '/orders', await issuer.tokens.expired({ scope: 'read:orders' }));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await json(res)).toMatchObject({ error: 'invalid_token' });
  });

  it('serves a customer’s orders under impersonation and logs one audit line with customer and actor', async () => {
    const { call, lines } = await setup(platform);
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
    const res = await call('GET', '/orders?page=1', token);
    expect(res.status).toBe(200);
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

  it('creates an order for the token’s subject (201), visible to that subject only', async () => {
    const { call } = await setup(platform);
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
    expect((await await json(await call('GET', '/orders', token))).orders).toEqual([order]);
    const other = await call(
      'GET',
      '/orders',
      await issuer.sign({ sub: 'customer-7', scope: 'read:orders' }),
    );
    expect((await json(other)).orders).toEqual([]);
  });

  it('records the support engineer as creator of an order placed under impersonation', async () => {
    const { call, lines } = await setup(platform);
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

  it('POST needs write:orders', async () => {
    const { call } = await setup(platform);
    const res = await call('POST', '/orders', await issuer.sign({ scope: 'read:orders' }), {
      item: 'coffee',
      quantity: 1,
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('scope="write:orders"');
  });

  it.each([
    ['malformed JSON', '{"item": "coffee",', 'body is not valid JSON'],
    ['a missing quantity', { item: 'coffee' }, '"quantity"'],
    ['a zero quantity', { item: 'coffee', quantity: 0 }, '"quantity"'],
    ['a string quantity', { item: 'coffee', quantity: '2' }, '"quantity"'],
    ['an empty item', { item: ' ', quantity: 1 }, '"item"'],
    ['an extra field', { item: 'coffee', quantity: 1, owner: 'someone-else' }, 'only "item" and "quantity"'],
    ['an array', [{ item: 'coffee', quantity: 1 }], 'JSON object'],
  ])('answers 400 JSON invalid_request for %s', async (_name, body, description) => {
    const { call, lines } = await setup(platform);
    const res = await call('POST', '/orders', await issuer.sign({ scope: 'write:orders' }), body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const answer = await json(res);
    expect(answer.error).toBe('invalid_request');
    expect(answer.error_description).toContain(description);
    expect(lines).toEqual([]);
  });

  it('answers 413 JSON, not HTML, for a body over 16 KiB', async () => {
    const { call } = await setup(platform);
    const res = await call('POST', '/orders', await issuer.sign({ scope: 'write:orders' }), {
      item: 'x'.repeat(20_000),
      quantity: 1,
    });
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ error: 'invalid_request' });
  });

  it('deletes the caller’s order (204), then 404', async () => {
    const { call } = await setup(platform);
    const token = await issuer.sign({ sub: 'customer-42', scope: 'write:orders' });
    const { id } = await await json(await call('POST', '/orders', token, { item: 'tea', quantity: 1 }));
    expect((await call('DELETE', `/orders/${id}`, token)).status).toBe(204);
    const again = await call('DELETE', `/orders/${id}`, token);
    expect(again.status).toBe(404);
    expect(await json(again)).toEqual({ error: 'not_found' });
  });

  it('refuses deletion under impersonation with 403 access_denied, logs the attempt and keeps the order', async () => {
    const { call, lines } = await setup(platform);
    const own = await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' });
    const { id } = await await json(await call('POST', '/orders', own, { item: 'tea', quantity: 1 }));
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
    const res = await call('DELETE', `/orders/${id}`, token);
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ error: 'access_denied' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      method: 'DELETE',
      subject: 'customer-42',
      actor: 'support-7',
    });
    expect((await await json(await call('GET', '/orders', own))).orders).toHaveLength(1);
  });

  it('GET /health needs no token', async () => {
    const res = await (await setup(platform)).call('GET', '/health');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: 'ok' });
  });

  it('answers unknown routes with JSON 404, without asking for a token', async () => {
    const res = await (await setup(platform)).call('GET', '/nope');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: 'not_found' });
  });
});
