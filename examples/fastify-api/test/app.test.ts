import { createTestIssuer } from '@gatehouse/testing';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';

const issuer = await createTestIssuer();
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A fresh app (own store and key cache) whose logger lines are kept in `lines`. */
async function setup() {
  const lines: string[] = [];
  const logger = { info: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const app = await createApp({ ...issuer.verifierOptions(), fetch: issuer.fetch, logger });
  return { app, lines };
}

it('refuses a token without read:orders with 403 insufficient_scope', async () => {
  const app = await createApp({ ...issuer.verifierOptions(), fetch: issuer.fetch });
  const token = await issuer.sign({ scope: 'write:orders' });
  const res = await app.inject({ url: '/orders', headers: { authorization: `Bearer ${token}` } });
  expect(res.statusCode).toBe(403);
  expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"');
});

describe('GET /orders', () => {
  it('answers 200 with the caller’s orders for a token with read:orders', async () => {
    const { app, lines } = await setup();
    const res = await app.inject({
      url: '/orders',
      headers: bearer(await issuer.sign({ scope: 'read:orders' })),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ orders: [] });
    expect(lines).toEqual([]);
  });

  it('answers 401 with a bare challenge and no error when there is no token', async () => {
    const res = await (await setup()).app.inject({ url: '/orders' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="api"/);
    expect(res.headers['www-authenticate']).not.toContain('error=');
  });

  it('answers 401 invalid_token for an expired token', async () => {
    const { app } = await setup();
    const res = await app.inject({
      url: '/orders',
      headers: bearer(await issuer.tokens.expired({ scope: 'read:orders' })),
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(res.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('serves a customer’s orders under impersonation and logs one audit line with customer and actor', async () => {
    const { app, lines } = await setup();
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
    const res = await app.inject({ url: '/orders?page=1', headers: bearer(token) });
    expect(res.statusCode).toBe(200);
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
  it('creates an order for the token’s subject (201)', async () => {
    const { app } = await setup();
    const token = await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' });
    const created = await app.inject({
      method: 'POST',
      url: '/orders',
      headers: bearer(token),
      payload: { item: ' coffee ', quantity: 2 },
    });
    expect(created.statusCode).toBe(201);
    const order = created.json();
    expect(order).toMatchObject({
      item: 'coffee',
      quantity: 2,
      owner: 'customer-42',
      createdBy: 'customer-42',
    });
    expect(created.headers.location).toBe(`/orders/${order.id}`);
    const listed = await app.inject({ url: '/orders', headers: bearer(token) });
    expect(listed.json().orders).toEqual([order]);
    const other = await app.inject({
      url: '/orders',
      headers: bearer(await issuer.sign({ sub: 'customer-7', scope: 'read:orders' })),
    });
    expect(other.json().orders).toEqual([]);
  });

  it('records the support engineer as creator of an order placed under impersonation', async () => {
    const { app, lines } = await setup();
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
    const res = await app.inject({
      method: 'POST',
      url: '/orders',
      headers: bearer(token),
      payload: { item: 'tea', quantity: 1 },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ owner: 'customer-42', createdBy: 'support-7' });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      method: 'POST',
      subject: 'customer-42',
      actor: 'support-7',
    });
  });

  it('needs write:orders', async () => {
    const { app } = await setup();
    const res = await app.inject({
      method: 'POST',
      url: '/orders',
      headers: bearer(await issuer.sign({ scope: 'read:orders' })),
      payload: { item: 'coffee', quantity: 1 },
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers['www-authenticate']).toContain('scope="write:orders"');
  });

  it.each([
    ['malformed JSON', '{"item": "coffee",', 'body is not valid JSON'],
    ['a missing quantity', { item: 'coffee' }, 'quantity'],
    ['a zero quantity', { item: 'coffee', quantity: 0 }, 'quantity'],
    ['a string quantity', { item: 'coffee', quantity: '2' }, 'quantity'],
    ['an empty item', { item: ' ', quantity: 1 }, 'item'],
    ['an extra field', { item: 'coffee', quantity: 1, owner: 'someone-else' }, 'additional properties'],
    ['an array', [{ item: 'coffee', quantity: 1 }], 'object'],
  ])('answers 400 JSON invalid_request for %s', async (_name, body, description) => {
    const { app, lines } = await setup();
    const res = await app.inject({
      method: 'POST',
      url: '/orders',
      headers: {
        ...bearer(await issuer.sign({ scope: 'write:orders' })),
        'content-type': 'application/json',
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().error).toBe('invalid_request');
    expect(res.json().error_description).toContain(description);
    expect(lines).toEqual([]);
  });

  it('answers 413 JSON for a body over 16 KiB', async () => {
    const { app } = await setup();
    const res = await app.inject({
      method: 'POST',
      url: '/orders',
      headers: bearer(await issuer.sign({ scope: 'write:orders' })),
      payload: { item: 'x'.repeat(20_000), quantity: 1 },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses an anonymous request before reading its body', async () => {
    const { app } = await setup();
    const res = await app.inject({
      method: 'POST',
      url: '/orders',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('DELETE /orders/:id', () => {
  it('deletes the caller’s order (204), then 404', async () => {
    const { app } = await setup();
    const headers = bearer(await issuer.sign({ sub: 'customer-42', scope: 'write:orders' }));
    const created = await app.inject({
      method: 'POST',
      url: '/orders',
      headers,
      payload: { item: 'tea', quantity: 1 },
    });
    const url = `/orders/${created.json().id}`;
    expect((await app.inject({ method: 'DELETE', url, headers })).statusCode).toBe(204);
    const again = await app.inject({ method: 'DELETE', url, headers });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'not_found' });
  });

  it('refuses impersonation with 403 access_denied, logs the attempt and keeps the order', async () => {
    const { app, lines } = await setup();
    const own = bearer(await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' }));
    const created = await app.inject({
      method: 'POST',
      url: '/orders',
      headers: own,
      payload: { item: 'tea', quantity: 1 },
    });
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
    const res = await app.inject({
      method: 'DELETE',
      url: `/orders/${created.json().id}`,
      headers: bearer(token),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'access_denied' });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      method: 'DELETE',
      subject: 'customer-42',
      actor: 'support-7',
    });
    expect((await app.inject({ url: '/orders', headers: own })).json().orders).toHaveLength(1);
  });
});

it('GET /health needs no token', async () => {
  const res = await (await setup()).app.inject({ url: '/health' });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ status: 'ok' });
});

it('answers unknown routes with JSON 404', async () => {
  const res = await (await setup()).app.inject({ url: '/nope' });
  expect(res.statusCode).toBe(404);
  expect(res.json()).toEqual({ error: 'not_found' });
});
