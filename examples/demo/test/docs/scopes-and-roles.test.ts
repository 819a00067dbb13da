/**
 * docs/scopes-and-roles.md, run against a real issuer seeded with the page's seed file: what a user and
 * a machine-to-machine application get, and how an API checks it — by scope, and by the `roles` claim
 * the orders resource opted in to (issuer → token → `requireRole`).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createClient } from '@gatehouse/client';
import { createVerifier, InsufficientRoleError } from '@gatehouse/core';
import { requireAuth, requireRole, requireScope } from '@gatehouse/express';
import { createIssuer, type Issuer } from '@gatehouse/issuer';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInHeadlessly } from '../../src/sign-in.ts';

const ORDERS = 'https://orders.example.com';
const seed = JSON.parse(readFileSync(new URL('orders-seed.json', import.meta.url), 'utf8'));

let front: Server;
let issuer: Issuer;
let baseUrl: string;

beforeAll(async () => {
  front = createServer();
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  issuer = await createIssuer({ baseUrl, database: ':memory:', log: { level: 'warn', destination: sink } });
  await issuer.seed(seed);
  front.on('request', issuer.handler);
});
afterAll(async () => {
  front?.closeAllConnections();
  await new Promise((resolve) => front?.close(resolve));
  await issuer?.close();
});

/** A user's access token for the orders API, after signing in through the issuer's form. */
async function userToken(username: string, password: string): Promise<string> {
  const client = createClient({
    endpoint: baseUrl,
    allowInsecureRequests: true,
    clientId: 'orders-web',
    redirectUri: 'http://127.0.0.1:8080/callback',
    resources: [ORDERS],
    scopes: ['read:orders', 'write:orders', 'orders:admin'],
  });
  const callback = await signInHeadlessly(
    await client.signIn(),
    'http://127.0.0.1:8080/callback',
    username,
    password,
  );
  await client.handleSignInCallback(callback);
  return client.getAccessToken(ORDERS);
}

async function workerToken(scope: string): Promise<Response> {
  const basic = Buffer.from('fulfilment-worker:fulfilment-worker-secret-0123456789').toString('base64');
  return fetch(`${baseUrl}/oidc/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: ORDERS, scope }),
  });
}

function ordersApi() {
  const app = express();
  app.use(requireAuth({ issuer: `${baseUrl}/oidc`, audience: ORDERS }));
  app.get('/orders', requireScope('read:orders'), (_req, res) => {
    res.json({ orders: [] });
  });
  app.post('/orders', requireScope('write:orders'), (_req, res) => {
    res.status(201).json({ id: 'o-1' });
  });
  app.delete('/orders/:id', requireScope(['orders:admin', 'write:orders'], { mode: 'any' }), (_req, res) => {
    res.status(204).end();
  });
  return app;
}

describe('scopes come from roles, per API resource', () => {
  it('a user gets the scopes their roles hold for the resource, of those the application asked for', async () => {
    const verifier = createVerifier({ issuer: `${baseUrl}/oidc`, audience: ORDERS, strict: true });
    const alice = await verifier.verify(await userToken('alice', 'alice-password-1'));
    expect([...alice.scopes].sort()).toEqual(['read:orders', 'write:orders']);
    const olga = await verifier.verify(await userToken('olga', 'olga-password-12'));
    expect(olga.scopes).toEqual(['read:orders']);
    expect(olga.hasScope('write:orders')).toBe(false);
    expect(olga.hasAnyScope('write:orders', 'read:orders')).toBe(true);
  });

  it('a machine-to-machine application gets its roles’ scopes; asking for others is refused or trimmed', async () => {
    const granted = (await (await workerToken('read:orders write:orders')).json()) as { scope: string };
    expect(granted.scope).toBe('read:orders');
    const refused = await workerToken('orders:admin');
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([
      400,
      'invalid_scope',
    ]);
  });

  it('the API checks them: all of them by default, any of them with mode "any"', async () => {
    const app = ordersApi();
    const olga = await userToken('olga', 'olga-password-12');
    const alice = await userToken('alice', 'alice-password-1');
    await request(app).get('/orders').auth(olga, { type: 'bearer' }).expect(200);
    const denied = await request(app).post('/orders').auth(olga, { type: 'bearer' });
    expect(denied.status).toBe(403);
    expect(denied.headers['www-authenticate']).toContain('scope="write:orders"');
    await request(app).post('/orders').auth(alice, { type: 'bearer' }).expect(201);
    await request(app).delete('/orders/o-1').auth(alice, { type: 'bearer' }).expect(204);
    expect((await request(app).delete('/orders/o-1').auth(olga, { type: 'bearer' })).status).toBe(403);
  });

  it('core does the same check directly', async () => {
    const verifier = createVerifier({ issuer: `${baseUrl}/oidc`, audience: ORDERS });
    const token = await userToken('olga', 'olga-password-12');
    const auth = await verifier.verify(token, { scopes: ['orders:admin', 'read:orders'], scopeMode: 'any' });
    auth.hasScope('write:orders'); // false: olga is an auditor
    expect(auth.hasScope('write:orders')).toBe(false);
    await expect(verifier.verify(token, { scopes: 'read:orders write:orders' })).rejects.toMatchObject({
      status: 403,
      code: 'insufficient_scope',
    });
  });
});

function reportsApi() {
  const app = express();
  app.use(requireAuth({ issuer: `${baseUrl}/oidc`, audience: ORDERS }));
  app.get('/reports', requireRole('auditor'), (_req, res) => {
    res.json({ reports: [] });
  });
  app.get('/orders/:id', requireRole(['customer', 'auditor'], { mode: 'any' }), (req, res) => {
    res.json({ id: req.params.id, roles: req.auth?.roles });
  });
  return app;
}

describe('roles in access tokens (rolesClaim)', () => {
  it('a token for a resource with rolesClaim lists the roles that hold its scopes', async () => {
    const verifier = createVerifier({ issuer: `${baseUrl}/oidc`, audience: ORDERS, strict: true });
    expect((await verifier.verify(await userToken('alice', 'alice-password-1'))).roles).toEqual(['customer']);
    expect((await verifier.verify(await userToken('olga', 'olga-password-12'))).roles).toEqual(['auditor']);
    const worker = (await (await workerToken('read:orders')).json()) as { access_token: string };
    expect((await verifier.verify(worker.access_token)).roles).toEqual(['fulfilment']);
  });

  it('requireRole lets the roles in, and answers 403 insufficient_scope without a scope to the others', async () => {
    const app = reportsApi();
    const olga = await userToken('olga', 'olga-password-12');
    const alice = await userToken('alice', 'alice-password-1');
    await request(app).get('/reports').auth(olga, { type: 'bearer' }).expect(200);
    const denied = await request(app).get('/reports').auth(alice, { type: 'bearer' });
    expect(denied.status).toBe(403);
    expect(denied.headers['www-authenticate']).toMatch(
      /^Bearer realm="api", error="insufficient_scope", error_description="The access token does not carry the required role", DPoP /,
    );
    expect(denied.headers['www-authenticate']).not.toContain('scope="');
    expect(denied.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The access token does not carry the required role',
    });
    const order = await request(app).get('/orders/o-1').auth(alice, { type: 'bearer' }).expect(200);
    expect(order.body).toEqual({ id: 'o-1', roles: ['customer'] });
  });

  it('core checks roles directly', async () => {
    const verifier = createVerifier({ issuer: `${baseUrl}/oidc`, audience: ORDERS });
    const token = await userToken('olga', 'olga-password-12');
    const auth = await verifier.verify(token, { roles: ['auditor', 'customer'], roleMode: 'any' });
    auth.roles; // ['auditor']
    auth.hasRole('customer'); // false: olga is an auditor
    expect(auth.roles).toEqual(['auditor']);
    expect(auth.hasRole('customer')).toBe(false);
    await expect(verifier.verify(token, { roles: 'customer' })).rejects.toBeInstanceOf(InsufficientRoleError);
  });
});
