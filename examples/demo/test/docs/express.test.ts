/**
 * The Express samples of README.md and docs/adapters.md, each wrapped in a function that builds the
 * app, answering real requests (supertest) with tokens of the example issuer.
 */
import type { AuthInfo } from '@gatehouse/core';
import { createVerifier, isAuthError, resourceMetadataUrl } from '@gatehouse/core';
import { requireAuth, requireScope } from '@gatehouse/express';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearer, useExampleIssuer } from './example-issuer.ts';

const issuer = await useExampleIssuer();
const read = () => issuer.sign({ sub: 'customer-42', scope: 'read:orders' });

function quickstart() {
  const app = express();
  app.use(requireAuth({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' }));

  app.get('/orders', requireScope('read:orders'), (req, res) => {
    res.json({ orders: [], for: req.auth?.subject }); // req.auth: the verified token (AuthInfo)
  });
  return app;
}

const verifier = createVerifier({
  issuer: 'https://id.example.com/oidc',
  audience: 'https://api.example.com',
});

function ownErrors() {
  const app = express();
  const onAuthError: ErrorRequestHandler = (err, _req, res, next) => {
    if (!isAuthError(err)) return next(err);
    res
      .status(err.status)
      .set(err.headers)
      .json({ type: 'about:blank', title: err.description, status: err.status });
  };

  app.use(requireAuth({ verifier, handleErrors: false }));
  app.get('/orders', (_req, res) => {
    res.json([]);
  });
  app.use(onAuthError);
  return app;
}

const publicFeed = () => ({ feed: 'public' });
const feedFor = (subject: string | undefined) => ({ feed: `for ${subject}` });

function anonymousFeed() {
  const app = express();
  app.get('/feed', requireAuth({ verifier, optional: true }), (req, res) => {
    res.json(req.auth ? feedFor(req.auth.subject) : publicFeed());
  });
  return app;
}

const handler: RequestHandler = (_req, res) => {
  res.status(201).json({ ok: true });
};

function payouts() {
  const app = express();
  const auth = requireAuth({ verifier });
  app.post('/payouts', auth, requireScope('payouts:create', { allowDelegation: false }), handler);
  return app;
}

function mcpServer() {
  const app = express();
  const auth = requireAuth({
    issuer: 'https://id.example.com/oidc',
    audience: 'https://api.example.com/mcp',
    resourceMetadata: {
      // every member is optional:
      resource: 'https://api.example.com/mcp', // default: the first audience
      authorizationServers: ['https://id.example.com/oidc'], // default: the issuers
      scopesSupported: ['mcp:tools', 'mcp:resources'],
      resourceName: 'Example MCP server',
    },
  });
  app.use(auth); // serves GET /.well-known/oauth-protected-resource/mcp, protects the rest
  app.get('/mcp', (_req, res) => {
    res.json({ ok: true });
  });
  return app;
}

async function sharedVerifier() {
  const verifier = createVerifier({
    issuer: 'https://id.example.com/oidc',
    audience: 'https://api.example.com',
    resourceMetadata: resourceMetadataUrl('https://api.example.com'), // only when serving metadata
  });
  await verifier.warmUp(); // optional: fetch the JWKS before the first request

  const auth = requireAuth({ verifier, resourceMetadata: { scopesSupported: ['read:orders'] } });
  const optional = requireAuth({ verifier, optional: true });
  const staffOnly = requireAuth({ verifier, allowDelegation: false });
  return { verifier, auth, optional, staffOnly };
}

describe('Express samples', () => {
  it('protect a route: 200 with read:orders, 403 without it, 401 without a token', async () => {
    const app = quickstart();
    await request(app)
      .get('/orders')
      .set(bearer(await read()))
      .expect(200, { orders: [], for: 'customer-42' });
    const denied = await request(app)
      .get('/orders')
      .set(bearer(await issuer.sign({ scope: 'profile' })));
    expect([denied.status, denied.body.error]).toEqual([403, 'insufficient_scope']);
    await request(app).get('/orders').expect(401);
  });

  it('taking over error formatting: the error middleware writes the answer, with the challenge', async () => {
    const res = await request(ownErrors())
      .get('/orders')
      .set(bearer(await issuer.tokens.expired()));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ type: 'about:blank', title: expect.any(String), status: 401 });
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('anonymous mode: public without a token, personal with one, a bad token refused', async () => {
    const app = anonymousFeed();
    await request(app).get('/feed').expect(200, { feed: 'public' });
    await request(app)
      .get('/feed')
      .set(bearer(await read()))
      .expect(200, { feed: 'for customer-42' });
    await request(app)
      .get('/feed')
      .set(bearer(await issuer.tokens.expired()))
      .expect(401);
  });

  it('refuses impersonation tokens on payouts with 403 access_denied', async () => {
    const app = payouts();
    const own = await issuer.sign({ sub: 'customer-42', scope: 'payouts:create' });
    const acting = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'payouts:create' });
    await request(app).post('/payouts').set(bearer(own)).expect(201);
    const res = await request(app).post('/payouts').set(bearer(acting));
    expect([res.status, res.body.error]).toEqual([403, 'access_denied']);
  });

  it('serves RFC 9728 metadata and names it in the challenge', async () => {
    const app = mcpServer();
    const refused = await request(app).get('/mcp');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe(
      'Bearer realm="api", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp", DPoP realm="api", algs="ES256 EdDSA RS256 PS256", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    const metadata = await request(app).get('/.well-known/oauth-protected-resource/mcp');
    expect(metadata.body).toEqual({
      resource: 'https://api.example.com/mcp',
      authorization_servers: ['https://id.example.com/oidc'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:tools', 'mcp:resources'],
      dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'RS256', 'PS256'],
      resource_name: 'Example MCP server',
    });
    const token = await issuer.sign({ aud: 'https://api.example.com/mcp' });
    await request(app).get('/mcp').set(bearer(token)).expect(200);
  });

  it('shares one verifier (one key cache) between the middlewares', async () => {
    const { verifier: shared, auth, optional, staffOnly } = await sharedVerifier();
    expect([auth.verifier, optional.verifier, staffOnly.verifier]).toEqual([shared, shared, shared]);
    const app = express();
    app.use(auth.metadata);
    app.get('/staff', staffOnly, (req, res) => {
      res.json({ who: (req.auth as AuthInfo).subject });
    });
    await request(app)
      .get('/staff')
      .set(bearer(await issuer.sign({ sub: 'staff-1' })))
      .expect(200, { who: 'staff-1' });
    const acting = await issuer.impersonation('support-7', { sub: 'staff-1' });
    expect((await request(app).get('/staff').set(bearer(acting))).status).toBe(403);
    const metadata = await request(app).get('/.well-known/oauth-protected-resource');
    expect(metadata.body.scopes_supported).toEqual(['read:orders']);
  });
});
