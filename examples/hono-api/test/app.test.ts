/**
 * The orders API on Hono served by `@hono/node-server` on loopback: scopes, 401/403 answers, the
 * audit line under impersonation (never the token), and JSON errors.
 */
import type { AddressInfo } from 'node:net';
import { createTestIssuer } from '@gatehouse/testing';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';

const issuer = await createTestIssuer();
const servers: ServerType[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

/** A fresh app (own store and key cache) on loopback, whose logger lines are kept in `lines`. */
async function setup() {
  const lines: string[] = [];
  const logger = { info: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const app = createApp({ ...issuer.verifierOptions(), fetch: issuer.fetch, logger });
  const base = await new Promise<string>((resolve) => {
    servers.push(
      serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
        resolve(`http://127.0.0.1:${info.port}`),
      ),
    );
  });
  const call = (path: string, token?: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...init.headers },
    });
  return { call, lines };
}

describe('GET /orders', () => {
  it('answers 200 with the caller’s orders for a token with read:orders', async () => {
    const { call, lines } = await setup();
    const res = await call('/orders', await issuer.sign({ scope: 'read:orders' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ orders: [] });
    expect(lines).toEqual([]);
  });

  it('answers 401 with a bare challenge when there is no token, 403 without the scope', async () => {
    const { call } = await setup();
    const anonymous = await call('/orders');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
    expect(anonymous.headers.get('www-authenticate')).not.toContain('error=');
    const writer = await call('/orders', await issuer.sign({ scope: 'write:orders' }));
    expect(writer.status).toBe(403);
    expect(writer.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('serves a customer’s orders under impersonation and logs one audit line with customer and actor', async () => {
    const { call, lines } = await setup();
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
    expect((await call('/orders?page=1', token)).status).toBe(200);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      event: 'impersonation',
      method: 'GET',
      path: '/orders',
      subject: 'customer-42',
      actor: 'support-7',
      delegated: true,
    });
    expect(lines[0]).not.toContain(token.split('.')[2]);
  });
});

describe('POST and DELETE /orders', () => {
  it('creates an order (201), refuses a bad body with 400 JSON, deletes it (204)', async () => {
    const { call } = await setup();
    const token = await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' });
    const json = { 'content-type': 'application/json' };
    const created = await call('/orders', token, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ item: 'coffee', quantity: 2 }),
    });
    expect(created.status).toBe(201);
    const order = (await created.json()) as { id: string; owner: string };
    expect(order.owner).toBe('customer-42');
    expect(created.headers.get('location')).toBe(`/orders/${order.id}`);
    const bad = await call('/orders', token, { method: 'POST', headers: json, body: '{"item":' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request' });
    expect((await call(`/orders/${order.id}`, token, { method: 'DELETE' })).status).toBe(204);
    expect((await call(`/orders/${order.id}`, token, { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses DELETE under impersonation with 403 access_denied, and audits the attempt', async () => {
    const { call, lines } = await setup();
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
    const res = await call('/orders/abc', token, { method: 'DELETE' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'access_denied' });
    expect(JSON.parse(lines[0]!)).toMatchObject({ method: 'DELETE', actor: 'support-7' });
  });

  it('answers unknown routes with JSON 404 and needs no token for /health', async () => {
    const { call } = await setup();
    expect(await (await call('/health')).json()).toEqual({ status: 'ok' });
    const missing = await call('/nope');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'not_found' });
  });
});
