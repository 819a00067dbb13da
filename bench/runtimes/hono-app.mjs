/**
 * The Hono app of one configuration (settings as in BENCH_SERVER), shared by the HTTP benchmark's
 * server (hono-server.mjs) and the in-process one (hono-node-micro.mjs):
 *
 *   bare               no auth: the ceiling
 *   hono-noop          two pass-through middlewares (the shape of requireAuth + requireScope): what
 *                      Hono's middleware chain costs by itself
 *   gatehouse          @gatehouse/hono requireAuth + requireScope, result cache off
 *   gatehouse-cached   the same with the result cache on (every request repeats the token)
 *   gatehouse-cached-one  one middleware: `auth.requireScope(scope)` (requireAuth and the scope check
 *                      in one layer of Hono's chain, cache on)
 *   hono-jwk           Hono's own `jwk` middleware with `jwks_uri`, `alg`, iss/aud/typ (at+jwt) checks, and a scope check
 */
import { requireAuth, requireScope } from '@gatehouse/hono';
import { Hono } from 'hono';
import { jwk } from 'hono/jwk';

const reply = (sub) => (c) => c.json({ ok: true, sub: sub(c) });

/** @returns {Promise<Hono>} */
export async function createApp(spec) {
  const app = new Hono();
  switch (spec.config) {
    case 'bare':
      app.get(
        '/orders',
        reply(() => 'user-1234567890'),
      );
      break;
    case 'hono-noop': {
      const pass = async (_c, next) => {
        await next();
      };
      app.get(
        '/orders',
        pass,
        pass,
        reply(() => 'user-1234567890'),
      );
      break;
    }
    case 'gatehouse':
    case 'gatehouse-cached':
    case 'gatehouse-cached-one': {
      const one = spec.config === 'gatehouse-cached-one';
      const auth = requireAuth({
        issuer: spec.issuer,
        audience: spec.audience,
        jwksUri: spec.jwksUri,
        algorithms: [spec.alg],
        ...(spec.config === 'gatehouse' ? { cache: false } : {}),
      });
      await auth.ready();
      const handlers = one ? [auth.requireScope(spec.scope)] : [auth, requireScope(spec.scope)];
      app.get(
        '/orders',
        ...handlers,
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
  return app;
}
