/**
 * Hono's own side of `requireRole()`: validation when the middleware is created, the wiring error
 * without `requireAuth()`, and `handleErrors: false` leaving the error to `app.onError`. What every
 * adapter answers alike is proven by the conformance table (rows A61–A62).
 */
import type { AddressInfo } from 'node:net';
import { InsufficientRoleError } from '@gatehouse/core';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireAuth, requireRole } from '../src/index.js';

let issuer: TestIssuer;
const servers: ServerType[] = [];
beforeAll(async () => {
  issuer = await createTestIssuer({ audience: 'https://api.gatehouse.test' });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

function start(app: Hono): Promise<string> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
    servers.push(server);
  });
}
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('requireRole', () => {
  it('refuses bad arguments when it is created', () => {
    expect(() => requireRole('a', { mode: 'some' } as never)).toThrow('"mode" option must be "all" or "any"');
    for (const empty of ['', []]) expect(() => requireRole(empty)).toThrow(TypeError);
  });

  it('is a server error when no requireAuth ran before it', async () => {
    const app = new Hono();
    app.onError((err, c) => c.json({ message: err.message }, 500));
    app.get('/x', requireRole('admin'), (c) => c.json({}));
    const res = await fetch(`${await start(app)}/x`, bearer(await issuer.sign({ roles: ['admin'] })));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      message: 'requireRole() must run after requireAuth() on the same route',
    });
  });

  it('with handleErrors: false, leaves the InsufficientRoleError to app.onError', async () => {
    const app = new Hono();
    app.onError((err, c) => c.json({ role: err instanceof InsufficientRoleError }, 418));
    app.use(requireAuth({ ...issuer.verifierOptions(), fetch: issuer.fetch, handleErrors: false }));
    app.get('/x', requireRole(['admin', 'auditor']), (c) => c.json(c.get('auth')?.roles));
    const url = await start(app);
    const denied = await fetch(`${url}/x`, bearer(await issuer.sign({ roles: ['auditor'] })));
    expect([denied.status, await denied.json()]).toEqual([418, { role: true }]);
    const ok = await fetch(`${url}/x`, bearer(await issuer.sign({ roles: ['auditor', 'admin'] })));
    expect(await ok.json()).toEqual(['auditor', 'admin']);
  });
});
