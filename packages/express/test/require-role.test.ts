/**
 * Express's own side of `requireRole()`: validation when the middleware is created, the wiring error
 * without `requireAuth()`, and `handleErrors: false` handing the `InsufficientRoleError` to `next(err)`.
 * What every adapter answers alike is proven by the conformance table (rows A61–A62).
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InsufficientRoleError } from '@gatehouse/core';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireAuth, requireRole } from '../src/index.js';

let issuer: TestIssuer;
const servers: Server[] = [];
beforeAll(async () => {
  issuer = await createTestIssuer({ audience: 'https://api.gatehouse.test' });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function start(app: Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const report: ErrorRequestHandler = (err, _req, res, _next) =>
  res.status(500).json({ name: err.name, message: err.message, roles: err.requiredRoles });

describe('requireRole', () => {
  it('refuses bad arguments when it is created', () => {
    expect(() => requireRole('a', { mode: 'some' } as never)).toThrow('"mode" option must be "all" or "any"');
    expect(() => requireRole('a', { mdoe: 'any' } as never)).toThrow(
      'unknown option "mdoe" (did you mean "mode"?)',
    );
    for (const empty of ['', []]) expect(() => requireRole(empty)).toThrow(TypeError);
    expect(() => requireRole([7] as never)).toThrow(TypeError);
  });

  it('is a server error when no requireAuth ran before it', async () => {
    const app = express();
    app.get('/x', requireRole('admin'), (_req, res) => res.json({}));
    app.use(report);
    const res = await fetch(`${await start(app)}/x`, bearer(await issuer.sign({ roles: ['admin'] })));
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      message: 'requireRole() must run after requireAuth() on the same route',
    });
  });

  it('with handleErrors: false, passes the InsufficientRoleError to next(err)', async () => {
    const app = express();
    const auth = requireAuth({ ...issuer.verifierOptions(), fetch: issuer.fetch, handleErrors: false });
    app.get('/x', auth, requireRole(['admin', 'owner'], { mode: 'any' }), (req, res) =>
      res.json(req.auth?.roles),
    );
    app.use(report);
    const url = await start(app);
    const denied = await fetch(`${url}/x`, bearer(await issuer.sign({ roles: ['auditor'] })));
    expect(denied.status).toBe(500);
    expect(await denied.json()).toEqual({
      name: InsufficientRoleError.name,
      message: 'The access token does not carry the required role',
      roles: ['admin', 'owner'],
    });
    const ok = await fetch(`${url}/x`, bearer(await issuer.sign({ roles: ['owner'] })));
    expect(await ok.json()).toEqual(['owner']);
  });
});
