/** Fastify 5 servers under test: bare, hand-written jose, Gatehouse (cache off / on) and @fastify/jwt + get-jwks. */
import fastifyJwt from '@fastify/jwt';
import Fastify from 'fastify';
import buildGetJwks from 'get-jwks';
import { SUBJECT } from '../lib/issuer.mjs';
import { createJoseGuard } from '../lib/jose-guard.mjs';
import { gatehouseDist } from '../lib/paths.mjs';

/** name → kind. `peer` entries are the libraries users would pick instead. */
export const CONFIGS = {
  bare: 'bare',
  jose: 'jose',
  gatehouse: 'gatehouse',
  'gatehouse-cached': 'gatehouse-cached',
  '@fastify/jwt+get-jwks': 'peer',
};

/** Register the guard; returns the route's `onRequest` hooks and how the handler finds `sub`. */
async function guards(app, config, { issuer, audience, jwksUri, alg, scope }) {
  switch (config) {
    case 'bare':
      return { onRequest: [], sub: () => SUBJECT };
    case 'jose': {
      const verify = createJoseGuard({ issuer, audience, jwksUri, alg, scope });
      app.decorateRequest('payload', null);
      const hook = async (request, reply) => {
        try {
          request.payload = await verify(request.headers.authorization);
        } catch (error) {
          return reply.code(error.status).headers(error.headers).send({ error: error.code });
        }
      };
      return { onRequest: [hook], sub: (request) => request.payload.sub };
    }
    case 'gatehouse':
    case 'gatehouse-cached': {
      const { gatehouse } = await import(gatehouseDist('fastify'));
      const cache = config === 'gatehouse' ? { cache: false } : {};
      await app.register(gatehouse, { issuer, audience, jwksUri, algorithms: [alg], ...cache });
      return {
        onRequest: [app.requireAuth, app.requireScope(scope)],
        sub: (request) => request.auth.subject,
      };
    }
    case '@fastify/jwt+get-jwks': {
      // As in get-jwks' README, plus the issuer, audience, algorithm and exp/sub checks the others make.
      const getJwks = buildGetJwks({ issuersWhitelist: [issuer] });
      await app.register(fastifyJwt, {
        decode: { complete: true },
        secret: (_request, token, callback) => {
          const {
            header: { kid, alg: tokenAlg },
            payload: { iss },
          } = token;
          getJwks
            .getPublicKey({ kid, domain: iss, alg: tokenAlg })
            .then((key) => callback(null, key), callback);
        },
        verify: {
          allowedIss: issuer,
          allowedAud: audience,
          algorithms: [alg],
          requiredClaims: ['exp', 'sub'],
        },
      });
      const hook = async (request, reply) => {
        await request.jwtVerify();
        const granted = typeof request.user?.scope === 'string' ? request.user.scope.split(' ') : [];
        if (!granted.includes(scope)) return reply.code(403).send({ error: 'insufficient_scope' });
      };
      return { onRequest: [hook], sub: (request) => request.user.sub };
    }
    default:
      throw new Error(`unknown fastify config ${config}`);
  }
}

/** Build the app and listen on an ephemeral loopback port. */
export async function start(config, options) {
  const app = Fastify({ logger: false });
  const { onRequest, sub } = await guards(app, config, options);
  app.get('/orders', { onRequest }, async (request) => ({ ok: true, sub: sub(request) }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app.server.address().port;
}
