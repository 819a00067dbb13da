/**
 * Fastify's own side of `app.requireRole()`: validation when the hook is created, the wiring error
 * without `requireAuth`, and `handleErrors: false` throwing the error to `setErrorHandler`. What every
 * adapter answers alike is proven by the conformance table (rows A61–A62).
 */
import { InsufficientRoleError } from '@gatehouse/core';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import gatehouse, { type GatehouseOptions } from '../src/index.js';

let issuer: TestIssuer;
const apps: FastifyInstance[] = [];
beforeAll(async () => {
  issuer = await createTestIssuer({ audience: 'https://api.gatehouse.test' });
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function build(options: Partial<GatehouseOptions> = {}): Promise<FastifyInstance> {
  const app = Fastify();
  apps.push(app);
  await app.register(gatehouse, {
    ...issuer.verifierOptions(),
    fetch: issuer.fetch,
    ...options,
  } as GatehouseOptions);
  return app;
}
const start = (app: FastifyInstance) => app.listen({ host: '127.0.0.1', port: 0 });
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('app.requireRole', () => {
  it('refuses bad arguments when the hook is created', async () => {
    const app = await build();
    expect(() => app.requireRole('a', { mode: 'some' } as never)).toThrow(
      '"mode" option must be "all" or "any"',
    );
    for (const empty of ['', []]) expect(() => app.requireRole(empty)).toThrow(TypeError);
  });

  it('is a server error when no requireAuth ran before it', async () => {
    const app = await build();
    app.get('/x', { onRequest: app.requireRole('admin') }, async () => ({}));
    const res = await fetch(`${await start(app)}/x`, bearer(await issuer.sign({ roles: ['admin'] })));
    expect(res.status).toBe(500);
  });

  it('with handleErrors: false, throws the InsufficientRoleError to the error handler', async () => {
    const app = await build({ handleErrors: false });
    app.setErrorHandler((err, _request, reply) =>
      reply
        .code(418)
        .send({ role: err instanceof InsufficientRoleError, status: (err as InsufficientRoleError).status }),
    );
    app.get(
      '/x',
      { onRequest: [app.requireAuth, app.requireRole('admin')] },
      async (request) => request.auth?.roles,
    );
    const url = await start(app);
    const denied = await fetch(`${url}/x`, bearer(await issuer.sign({ roles: ['auditor'] })));
    expect([denied.status, await denied.json()]).toEqual([418, { role: true, status: 403 }]);
    const ok = await fetch(`${url}/x`, bearer(await issuer.sign({ roles: ['admin'] })));
    expect(await ok.json()).toEqual(['admin']);
  });
});
