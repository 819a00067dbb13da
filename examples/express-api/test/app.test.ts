import { createTestIssuer } from '@gatehouse/testing';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';

const issuer = await createTestIssuer();

/** A fresh app (own store and key cache) whose logger lines are kept in `lines`. */
function setup() {
  const lines: string[] = [];
  const logger = { info: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const app = createApp({ ...issuer.verifierOptions(), fetch: issuer.fetch, logger });
  return { app, lines };
}

it('refuses a token without read:orders with 403 insufficient_scope', async () => {
  const app = createApp({ ...issuer.verifierOptions(), fetch: issuer.fetch });
  const token = await issuer.sign({ scope: 'write:orders' });
  const res = await request(app).get('/orders').auth(token, { type: 'bearer' });
  expect(res.status).toBe(403);
  expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"');
});

describe('GET /orders', () => {
  it('answers 200 with the caller’s orders for a token with read:orders', async () => {
    const { app, lines } = setup();
    const res = await request(app)
      .get('/orders')
      .auth(await issuer.sign({ scope: 'read:orders' }), { type: 'bearer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ orders: [] });
    expect(lines).toEqual([]);
  });

  it('answers 401 with a bare challenge and no error when there is no token', async () => {
    const res = await request(setup().app).get('/orders');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="api"/);
    expect(res.headers['www-authenticate']).not.toContain('error=');
  });

  it('answers 401 invalid_token for an expired token', async () => {
    const res = await request(setup().app)
      .get('/orders')
      .auth(await issuer.tokens.expired({ scope: 'read:orders' }), { type: 'bearer' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(res.body).toMatchObject({ error: 'invalid_token' });
  });

  it('serves a customer’s orders under impersonation and logs one audit line with customer and actor', async () => {
    const { app, lines } = setup();
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
    const res = await request(app).get('/orders?page=1').auth(token, { type: 'bearer' });
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
    const { app } = setup();
    const token = await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' });
    const created = await request(app)
      .post('/orders')
      .auth(token, { type: 'bearer' })
      .send({ item: 'coffee', quantity: 2 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      item: 'coffee',
      quantity: 2,
      owner: 'customer-42',
      createdBy: 'customer-42',
    });
    expect(created.headers.location).toBe(`/orders/${created.body.id}`);
    const listed = await request(app).get('/orders').auth(token, { type: 'bearer' });
    expect(listed.body.orders).toEqual([created.body]);
    const other = await request(app)
      .get('/orders')
      .auth(await issuer.sign({ sub: 'customer-7', scope: 'read:orders' }), { type: 'bearer' });
    expect(other.body.orders).toEqual([]);
  });

  it('records the support engineer as creator of an order placed under impersonation', async () => {
    const { app, lines } = setup();
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
    const res = await request(app)
      .post('/orders')
      .auth(token, { type: 'bearer' })
      .send({ item: 'tea', quantity: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ owner: 'customer-42', createdBy: 'support-7' });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      method: 'POST',
      subject: 'customer-42',
      actor: 'support-7',
    });
  });

  it('needs write:orders', async () => {
    const res = await request(setup().app)
      .post('/orders')
      .auth(await issuer.sign({ scope: 'read:orders' }), { type: 'bearer' })
      .send({ item: 'coffee', quantity: 1 });
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toContain('scope="write:orders"');
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
    const { app, lines } = setup();
    const res = await request(app)
      .post('/orders')
      .auth(await issuer.sign({ scope: 'write:orders' }), { type: 'bearer' })
      .set('content-type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.error_description).toContain(description);
    expect(lines).toEqual([]);
  });

  it('answers 413 JSON, not HTML, for a body over 16 KiB', async () => {
    const res = await request(setup().app)
      .post('/orders')
      .auth(await issuer.sign({ scope: 'write:orders' }), { type: 'bearer' })
      .send({ item: 'x'.repeat(20_000), quantity: 1 });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses an anonymous request before reading its body', async () => {
    const res = await request(setup().app)
      .post('/orders')
      .set('content-type', 'application/json')
      .send('{not json');
    expect(res.status).toBe(401);
  });
});

describe('DELETE /orders/:id', () => {
  it('deletes the caller’s order (204), then 404', async () => {
    const { app } = setup();
    const token = await issuer.sign({ sub: 'customer-42', scope: 'write:orders' });
    const { body } = await request(app)
      .post('/orders')
      .auth(token, { type: 'bearer' })
      .send({ item: 'tea', quantity: 1 });
    expect((await request(app).delete(`/orders/${body.id}`).auth(token, { type: 'bearer' })).status).toBe(
      204,
    );
    const again = await request(app).delete(`/orders/${body.id}`).auth(token, { type: 'bearer' });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'not_found' });
  });

  it('refuses impersonation with 403 access_denied, logs the attempt and keeps the order', async () => {
    const { app, lines } = setup();
    const own = await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' });
    const { body } = await request(app)
      .post('/orders')
      .auth(own, { type: 'bearer' })
      .send({ item: 'tea', quantity: 1 });
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
    const res = await request(app).delete(`/orders/${body.id}`).auth(token, { type: 'bearer' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'access_denied' });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      method: 'DELETE',
      subject: 'customer-42',
      actor: 'support-7',
    });
    const listed = await request(app).get('/orders').auth(own, { type: 'bearer' });
    expect(listed.body.orders).toHaveLength(1);
  });
});

it('GET /health needs no token', async () => {
  const res = await request(setup().app).get('/health');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok' });
});

it('answers unknown routes with JSON 404', async () => {
  const res = await request(setup().app).get('/nope');
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ error: 'not_found' });
});
