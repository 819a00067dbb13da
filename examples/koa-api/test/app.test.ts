import type { AddressInfo } from 'node:net';
import { createTestIssuer } from '@gatehouse/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';

const issuer = await createTestIssuer();
const servers: Array<{ close(): void; closeAllConnections(): void }> = [];
afterAll(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

/** Start an app on a loopback port; returns a `fetch` bound to it. */
async function serve(app: ReturnType<typeof createApp>) {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return (path: string, init: RequestInit & { token?: string; json?: unknown } = {}) => {
    const { token, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    if (json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`http://127.0.0.1:${port}${path}`, {
      ...rest,
      headers,
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  };
}

/** The JSON body of a response, with the members these tests read. */
const read = async (res: Response) =>
  (await res.json()) as { id: string; orders: unknown[]; error: string; error_description: string };

/** A fresh app (own store and key cache) on its own port, whose logger lines are kept in `lines`. */
async function setup() {
  const lines: string[] = [];
  const logger = { info: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const request = await serve(createApp({ ...issuer.verifierOptions(), fetch: issuer.fetch, logger }));
  return { request, lines };
}

it('refuses a token without read:orders with 403 insufficient_scope', async () => {
  const request = await serve(createApp({ ...issuer.verifierOptions(), fetch: issuer.fetch }));
  const res = await request('/orders', { token: await issuer.sign({ scope: 'write:orders' }) });
  expect(res.status).toBe(403);
  expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
});

describe('GET /orders', () => {
  it('answers 200 with the caller’s orders for a token with read:orders', async () => {
    const { request, lines } = await setup();
    const res = await request('/orders', { token: await issuer.sign({ scope: 'read:orders' }) });
    expect(res.status).toBe(200);
    expect(await read(res)).toEqual({ orders: [] });
    expect(lines).toEqual([]);
  });

  it('answers 401 with a bare challenge and no error when there is no token', async () => {
    const res = await (await setup()).request('/orders');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
    expect(res.headers.get('www-authenticate')).not.toContain('error=');
  });

  it('answers 401 invalid_token for an expired token', async () => {
    const { request } = await setup();
    const res = await request('/orders', { token: await issuer.tokens.expired({ scope: 'read:orders' }) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await read(res)).toMatchObject({ error: 'invalid_token' });
  });

  it('serves a customer’s orders under impersonation and logs one audit line with customer and actor', async () => {
    const { request, lines } = await setup();
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
    const res = await request('/orders?page=1', { token });
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
});

describe('POST /orders', () => {
  it('creates an order for the token’s subject (201)', async () => {
    const { request } = await setup();
    const token = await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' });
    const created = await request('/orders', {
      method: 'POST',
      token,
      json: { item: 'coffee', quantity: 2 },
    });
    expect(created.status).toBe(201);
    const order = await read(created);
    expect(order).toMatchObject({
      item: 'coffee',
      quantity: 2,
      owner: 'customer-42',
      createdBy: 'customer-42',
    });
    expect(created.headers.get('location')).toBe(`/orders/${order.id}`);
    expect(await read(await request('/orders', { token }))).toEqual({ orders: [order] });
    const other = await request('/orders', {
      token: await issuer.sign({ sub: 'customer-7', scope: 'read:orders' }),
    });
    expect(await read(other)).toEqual({ orders: [] });
  });

  it('records the support engineer as creator of an order placed under impersonation', async () => {
    const { request, lines } = await setup();
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
    const res = await request('/orders', { method: 'POST', token, json: { item: 'tea', quantity: 1 } });
    expect(res.status).toBe(201);
    expect(await read(res)).toMatchObject({ owner: 'customer-42', createdBy: 'support-7' });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      method: 'POST',
      subject: 'customer-42',
      actor: 'support-7',
    });
  });

  it('needs write:orders', async () => {
    const { request } = await setup();
    const token = await issuer.sign({ scope: 'read:orders' });
    const res = await request('/orders', { method: 'POST', token, json: { item: 'coffee', quantity: 1 } });
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
    const { request, lines } = await setup();
    const res = await request('/orders', {
      method: 'POST',
      token: await issuer.sign({ scope: 'write:orders' }),
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const json = await read(res);
    expect(json.error).toBe('invalid_request');
    expect(json.error_description).toContain(description);
    expect(lines).toEqual([]);
  });

  it('answers 413 JSON, not text, for a body over 16 KiB', async () => {
    const { request } = await setup();
    const token = await issuer.sign({ scope: 'write:orders' });
    const res = await request('/orders', {
      method: 'POST',
      token,
      json: { item: 'x'.repeat(20_000), quantity: 1 },
    });
    expect(res.status).toBe(413);
    expect(await read(res)).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses an anonymous request before reading its body', async () => {
    const { request } = await setup();
    const res = await request('/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(res.status).toBe(401);
  });
});

describe('DELETE /orders/:id', () => {
  it('deletes the caller’s order (204), then 404', async () => {
    const { request } = await setup();
    const token = await issuer.sign({ sub: 'customer-42', scope: 'write:orders' });
    const created = await request('/orders', { method: 'POST', token, json: { item: 'tea', quantity: 1 } });
    const path = `/orders/${(await read(created)).id}`;
    expect((await request(path, { method: 'DELETE', token })).status).toBe(204);
    const again = await request(path, { method: 'DELETE', token });
    expect(again.status).toBe(404);
    expect(await read(again)).toEqual({ error: 'not_found' });
  });

  it('refuses impersonation with 403 access_denied, logs the attempt and keeps the order', async () => {
    const { request, lines } = await setup();
    const own = await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' });
    const created = await request('/orders', {
      method: 'POST',
      token: own,
      json: { item: 'tea', quantity: 1 },
    });
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
    const res = await request(`/orders/${(await read(created)).id}`, { method: 'DELETE', token });
    expect(res.status).toBe(403);
    expect(await read(res)).toMatchObject({ error: 'access_denied' });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      method: 'DELETE',
      subject: 'customer-42',
      actor: 'support-7',
    });
    expect((await read(await request('/orders', { token: own }))).orders).toHaveLength(1);
  });
});

it('GET /health needs no token', async () => {
  const res = await (await setup()).request('/health');
  expect(res.status).toBe(200);
  expect(await read(res)).toEqual({ status: 'ok' });
});

it('answers unknown routes with JSON 404', async () => {
  const res = await (await setup()).request('/nope');
  expect(res.status).toBe(404);
  expect(await read(res)).toEqual({ error: 'not_found' });
});
