/** Express 5 servers under test: bare, hand-written jose, Gatehouse (cache off / on) and the peers. */
import express from 'express';
import { expressjwt } from 'express-jwt';
import { auth, requiredScopes } from 'express-oauth2-jwt-bearer';
import jwksRsa from 'jwks-rsa';
import { SUBJECT } from '../lib/issuer.mjs';
import { createJoseGuard } from '../lib/jose-guard.mjs';
import { gatehouseDist } from '../lib/paths.mjs';

/** name → kind. `peer` entries are the libraries users would pick instead. */
export const CONFIGS = {
  bare: 'bare',
  jose: 'jose',
  gatehouse: 'gatehouse',
  'gatehouse-cached': 'gatehouse-cached',
  'express-oauth2-jwt-bearer': 'peer',
  'express-jwt+jwks-rsa': 'peer',
};

const hasScope = (payload, scope) =>
  typeof payload?.scope === 'string' && payload.scope.split(' ').includes(scope);

/** Guards for `GET /orders`, and how the handler finds `sub`. */
async function guards(config, { issuer, audience, jwksUri, alg, scope }) {
  switch (config) {
    case 'bare':
      return { chain: [], sub: () => SUBJECT };
    case 'jose': {
      const verify = createJoseGuard({ issuer, audience, jwksUri, alg, scope });
      const middleware = async (req, res, next) => {
        try {
          req.payload = await verify(req.headers.authorization);
        } catch (error) {
          res.status(error.status).set(error.headers).json({ error: error.code });
          return;
        }
        next();
      };
      return { chain: [middleware], sub: (req) => req.payload.sub };
    }
    case 'gatehouse':
    case 'gatehouse-cached': {
      const { requireAuth, requireScope } = await import(gatehouseDist('express'));
      const cache = config === 'gatehouse' ? { cache: false } : {};
      const authenticate = requireAuth({ issuer, audience, jwksUri, algorithms: [alg], ...cache });
      return { chain: [authenticate, requireScope(scope)], sub: (req) => req.auth.subject };
    }
    // DPoP configurations, run by dpop.mjs (not part of the Bearer plan of run.mjs).
    case 'gatehouse-dpop': {
      const { requireAuth, requireScope } = await import(gatehouseDist('express'));
      const authenticate = requireAuth({ issuer, audience, jwksUri, algorithms: [alg] });
      return { chain: [authenticate, requireScope(scope)], sub: (req) => req.auth.subject };
    }
    case 'express-oauth2-jwt-bearer-dpop':
      return {
        chain: [auth({ issuer, jwksUri, audience, dpop: { enabled: true } }), requiredScopes(scope)],
        sub: (req) => req.auth.payload.sub,
      };
    case 'express-oauth2-jwt-bearer':
      return {
        chain: [auth({ issuer, jwksUri, audience }), requiredScopes(scope)],
        sub: (req) => req.auth.payload.sub,
      };
    case 'express-jwt+jwks-rsa': {
      const secret = jwksRsa.expressJwtSecret({ jwksUri, cache: true, rateLimit: true });
      const check = (req, res, next) =>
        hasScope(req.auth, scope) ? next() : res.status(403).json({ error: 'insufficient_scope' });
      return {
        chain: [expressjwt({ secret, audience, issuer, algorithms: [alg] }), check],
        sub: (req) => req.auth.sub,
      };
    }
    default:
      throw new Error(`unknown express config ${config}`);
  }
}

/** Build the app and listen on an ephemeral loopback port. */
export async function start(config, options) {
  const { chain, sub } = await guards(config, options);
  const app = express();
  app.get('/orders', ...chain, (req, res) => {
    res.json({ ok: true, sub: sub(req) });
  });
  // Failures of any guard become a JSON status, so no configuration pays for an HTML error page.
  app.use((err, _req, res, _next) => {
    res.status(err.status ?? err.statusCode ?? 500).json({ error: err.code ?? 'error' });
  });
  const server = await new Promise((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (error) => (error ? reject(error) : resolve(s)));
  });
  return server.address().port;
}
