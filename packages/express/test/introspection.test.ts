/**
 * Opaque tokens through the adapter: `introspection` passes with the verifier options, and the
 * answers are the usual ones (200, 401 `invalid_token`, 503 with `Retry-After`), on a real Express
 * server introspecting at a real loopback endpoint.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireAuth } from '../src/index.js';

const AUDIENCE = 'https://api.gatehouse.test';
let answer: { status: number; body: string } = { status: 200, body: '{"active":false}' };
/** The issuer named by the answers: the endpoint's own origin. */
let issuerUrl = '';
let endpoint: Server;
let api: Server;
let apiUrl: string;

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  endpoint = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body),
    );
  });
  const origin = await listen(endpoint);
  const app = express();
  app.get(
    '/orders',
    requireAuth({
      issuer: `${origin}/oidc`,
      audience: AUDIENCE,
      onWarning: false,
      introspection: {
        endpoint: `${origin}/introspect`,
        clientId: 'orders-api',
        clientSecret: 's3cret-value',
      },
    }),
    (req, res) => {
      res.json({ subject: req.auth?.subject });
    },
  );
  api = createServer(app);
  apiUrl = await listen(api);
  issuerUrl = `${origin}/oidc`;
});
afterAll(async () => {
  api.closeAllConnections();
  endpoint.closeAllConnections();
  await Promise.all([api, endpoint].map((s) => new Promise((resolve) => s.close(resolve))));
});

const get = (token: string) => fetch(`${apiUrl}/orders`, { headers: { authorization: `Bearer ${token}` } });

describe('requireAuth with introspection', () => {
  it('accepts an active opaque token, refuses an inactive one with 401 invalid_token', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    answer = {
      status: 200,
      body: JSON.stringify({ active: true, iss: issuerUrl, aud: AUDIENCE, sub: 'user-1', exp }),
    };
    const ok = await get('opaque-token-1');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ subject: 'user-1' });

    answer = { status: 200, body: '{"active":false}' };
    const refused = await get('opaque-token-2');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await refused.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('answers 503 with Retry-After when the introspection endpoint fails', async () => {
    answer = { status: 500, body: '' };
    const res = await get('opaque-token-3');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(await res.json()).toMatchObject({ error: 'temporarily_unavailable' });
  });
});
