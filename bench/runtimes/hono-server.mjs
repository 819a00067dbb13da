/**
 * One Hono server under test (hono-http.mjs bundles it per runtime): `GET /orders` behind
 *
 *   bare               no auth: the ceiling
 *   gatehouse          @gatehouse/hono requireAuth + requireScope, result cache off
 *   gatehouse-cached   the same with the result cache on (every request repeats the token)
 *   hono-jwk           Hono's own `jwk` middleware with `jwks_uri`, `alg`, iss/aud/typ (at+jwt) checks, and a scope check
 *
 * Settings in BENCH_SERVER (JSON); prints `READY <port>`. Node: @hono/node-server; Bun: Bun.serve.
 */
import { requireAuth, requireScope } from '@gatehouse/hono';
import { Hono } from 'hono';
import { jwk } from 'hono/jwk';

const spec = JSON.parse(globalThis.process?.env?.BENCH_SERVER ?? '{}');
const app = new Hono();
const reply = (sub) => (c) => c.json({ ok: true, sub: sub(c) });

switch (spec.config) {
  case 'bare':
    app.get(
      '/orders',
      reply(() => 'user-1234567890'),
    );
    break;
  case 'gatehouse':
  case 'gatehouse-cached': {
    const auth = requireAuth({
      issuer: spec.issuer,
      audience: spec.audience,
      jwksUri: spec.jwksUri,
      algorithms: [spec.alg],
      ...(spec.config === 'gatehouse' ? { cache: false } : {}),
    });
    await auth.ready();
    app.get(
      '/orders',
      auth,
      requireScope(spec.scope),
      reply((c) => c.get('auth')?.subject),
    );
    break;
  }
  case 'hono-jwk':
    app.get(
      '/orders',
      jwk({
        jwks_uri: spec.jwksUri,
        alg: [spec.alg],
        verification: { iss: spec.issuer, aud: spec.audience, typ: 'at+jwt' },
      }),
      async (c, next) => {
        const scope = c.get('jwtPayload')?.scope;
        if (typeof scope !== 'string' || !scope.split(' ').includes(spec.scope))
          return c.json({ error: 'insufficient_scope' }, 403);
        await next();
      },
      reply((c) => c.get('jwtPayload')?.sub),
    );
    break;
  default:
    throw new Error(`unknown config ${spec.config}`);
}

if (typeof Bun !== 'undefined') {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app.fetch });
  console.log(`READY ${server.port}`);
} else {
  const { serve } = await import('@hono/node-server');
  serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => console.log(`READY ${info.port}`));
}
