/** Koa 3 servers under test: bare, hand-written jose, Gatehouse (cache off / on) and koa-jwt + jwks-rsa. */
import jwksRsa from 'jwks-rsa';
import Koa from 'koa';
import koaJwt from 'koa-jwt';
import { SUBJECT } from '../lib/issuer.mjs';
import { createJoseGuard } from '../lib/jose-guard.mjs';
import { gatehouseDist } from '../lib/paths.mjs';

/** name → kind. `peer` entries are the libraries users would pick instead. */
export const CONFIGS = {
  bare: 'bare',
  jose: 'jose',
  gatehouse: 'gatehouse',
  'gatehouse-cached': 'gatehouse-cached',
  'koa-jwt+jwks-rsa': 'peer',
};

/** The guard middleware, and how the handler finds `sub`. */
async function guards(config, { issuer, audience, jwksUri, alg, scope }) {
  switch (config) {
    case 'bare':
      return { chain: [], sub: () => SUBJECT };
    case 'jose': {
      const verify = createJoseGuard({ issuer, audience, jwksUri, alg, scope });
      const middleware = async (ctx, next) => {
        try {
          ctx.state.payload = await verify(ctx.get('authorization'));
        } catch (error) {
          ctx.status = error.status;
          ctx.set(error.headers);
          ctx.body = { error: error.code };
          return;
        }
        await next();
      };
      return { chain: [middleware], sub: (ctx) => ctx.state.payload.sub };
    }
    case 'gatehouse':
    case 'gatehouse-cached': {
      const { requireAuth, requireScope } = await import(gatehouseDist('koa'));
      const cache = config === 'gatehouse' ? { cache: false } : {};
      const authenticate = requireAuth({ issuer, audience, jwksUri, algorithms: [alg], ...cache });
      return { chain: [authenticate, requireScope(scope)], sub: (ctx) => ctx.state.auth.subject };
    }
    case 'koa-jwt+jwks-rsa': {
      const secret = jwksRsa.koaJwtSecret({ jwksUri, cache: true, rateLimit: true });
      const check = async (ctx, next) => {
        const granted = typeof ctx.state.user?.scope === 'string' ? ctx.state.user.scope.split(' ') : [];
        if (!granted.includes(scope)) ctx.throw(403, 'insufficient_scope');
        await next();
      };
      return {
        chain: [koaJwt({ secret, audience, issuer, algorithms: [alg] }), check],
        sub: (ctx) => ctx.state.user.sub,
      };
    }
    default:
      throw new Error(`unknown koa config ${config}`);
  }
}

/** Build the app and listen on an ephemeral loopback port. */
export async function start(config, options) {
  const { chain, sub } = await guards(config, options);
  const app = new Koa();
  for (const middleware of chain) app.use(middleware);
  app.use((ctx) => {
    ctx.body = { ok: true, sub: sub(ctx) };
  });
  const server = await new Promise((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  return server.address().port;
}
