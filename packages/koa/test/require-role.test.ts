/**
 * Koa's own side of `requireRole()`: validation when the middleware is created and the wiring error
 * without `requireAuth()`. What every adapter answers alike is proven by the conformance table
 * (rows A61–A62).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import Koa from 'koa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireRole } from '../src/index.js';

let issuer: TestIssuer;
const servers: Server[] = [];
beforeAll(async () => {
  issuer = await createTestIssuer({ audience: 'https://api.gatehouse.test' });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function start(app: Koa): Promise<string> {
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('requireRole', () => {
  it('refuses bad arguments when it is created', () => {
    expect(() => requireRole('a', { mode: 'some' } as never)).toThrow('"mode" option must be "all" or "any"');
    for (const empty of ['', []]) expect(() => requireRole(empty)).toThrow(TypeError);
  });

  it('is a server error when no requireAuth ran before it', async () => {
    const errors: Error[] = [];
    const app = new Koa();
    app.on('error', (err: Error) => errors.push(err));
    app.use(requireRole('admin'));
    const token = await issuer.sign({ roles: ['admin'] });
    const res = await fetch(`${await start(app)}/x`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(500);
    expect(errors.map((e) => e.message)).toEqual([
      'requireRole() must run after requireAuth() on the same route',
    ]);
  });
});
