/**
 * docs/adapters.md, "Hono 4": the samples, on a real @hono/node-server, with tokens of the example
 * issuer the docs name (the demo's msw-served `https://id.example.com/oidc`).
 */
import type { AddressInfo } from 'node:net';
import { isAuthError } from '@gatehouse/core';
import { requireAuth, requireScope } from '@gatehouse/hono';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { afterAll, expect, it } from 'vitest';
import { useExampleIssuer } from '../../../demo/test/docs/example-issuer.ts';

const issuer = await useExampleIssuer();
const servers: ServerType[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

async function listen(fetchHandler: (request: Request) => Response | Promise<Response>): Promise<string> {
  return new Promise((resolve) => {
    servers.push(
      serve({ fetch: fetchHandler, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
        resolve(`http://127.0.0.1:${info.port}`),
      ),
    );
  });
}

it('requireAuth, requireScope and c.get("auth")', async () => {
  const app = new Hono();
  app.use(requireAuth({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' }));

  app.get('/orders', requireScope('read:orders'), (c) => {
    return c.json({ orders: [], for: c.get('auth')?.subject }); // c.get('auth'): the verified token (AuthInfo)
  });

  const base = await listen(app.fetch);
  const token = await issuer.sign({ sub: 'user-1', scope: 'read:orders' });
  const res = await fetch(`${base}/orders`, { headers: { authorization: `Bearer ${token}` } });
  expect(await res.json()).toEqual({ orders: [], for: 'user-1' });
  expect((await fetch(`${base}/orders`)).status).toBe(401);
});

it('auth.requireScope(): requireAuth and the scope check in one middleware', async () => {
  const app = new Hono();
  const auth = requireAuth({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' });
  app.use(auth.metadata); // the RFC 9728 document, when resourceMetadata is set

  app.get('/orders', auth.requireScope('read:orders'), (c) => c.json({ for: c.get('auth')?.subject }));
  app.post('/refunds', auth.requireScope('refunds:create', { allowDelegation: false }), (c) => c.json({}));

  const base = await listen(app.fetch);
  const token = await issuer.sign({ sub: 'user-1', scope: 'read:orders' });
  const res = await fetch(`${base}/orders`, { headers: { authorization: `Bearer ${token}` } });
  expect(await res.json()).toEqual({ for: 'user-1' });
  expect((await fetch(`${base}/orders`)).status).toBe(401);
  const refused = await fetch(`${base}/refunds`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  expect(refused.status).toBe(403);
});

it('app.onError sees an HTTPException whose cause is the AuthError', async () => {
  const app = new Hono();
  app.use(requireAuth({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' }));
  app.get('/orders', (c) => c.json({ orders: [] }));

  app.onError((err, c) => {
    if (err instanceof HTTPException && isAuthError(err.cause)) {
      console.warn(`refused: ${err.cause.reason}`); // never the token: reasons are fixed strings
      return err.getResponse(); // the RFC 6750 answer: status, WWW-Authenticate, JSON body
    }
    return c.json({ error: 'server_error' }, 500);
  });

  const base = await listen(app.fetch);
  const res = await fetch(`${base}/orders`, { headers: { authorization: 'Bearer not-a-jwt' } });
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject({ error: 'invalid_token' });
});
