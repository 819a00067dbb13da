/**
 * The samples of docs/testing.md, run in the order the page shows them: a test issuer with msw, an
 * Express and a Fastify app, tokens good and bad, rotation, outages, `issuer.fetch`, another process,
 * impersonation tokens and fake clocks. (Section 11, Node's test runner, is orders.node-test.mjs.)
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createVerifier } from '@gatehouse/core';
import { requireAuth, requireScope } from '@gatehouse/express';
import { gatehouse } from '@gatehouse/fastify';
import { createTestIssuer, onUnhandledRequest } from '@gatehouse/testing';
import express from 'express';
import Fastify from 'fastify';
import { setupServer } from 'msw/node';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../../../test/support/ports.js';
import { createApp } from '../../../express-api/src/app.ts';

const issuer = await createTestIssuer(); // fresh ES256 key; iss https://issuer.gatehouse.test/oidc
const server = setupServer(...issuer.handlers); // discovery (both .well-known forms) + JWKS

beforeAll(() => server.listen({ onUnhandledRequest }));
afterEach(() => server.resetHandlers()); // drops outage handlers added with server.use()
afterAll(() => server.close());

describe('3. Express and supertest', () => {
  const app = express();
  const auth = requireAuth({ issuer: issuer.issuer, audience: issuer.audience });
  app.get('/orders', auth, requireScope('read:orders'), (_req, res) => {
    res.json([]);
  });

  it('GET /orders with a token lacking read:orders returns 403 insufficient_scope', async () => {
    const token = await issuer.sign({ scope: 'write:orders' });
    const res = await request(app).get('/orders').auth(token, { type: 'bearer' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
    expect(res.headers['www-authenticate']).toContain('scope="read:orders"');
  });

  it('GET /orders with read:orders returns 200', async () => {
    const token = await issuer.sign({ scope: 'read:orders' });
    await request(app).get('/orders').auth(token, { type: 'bearer' }).expect(200, []);
  });

  it.each([
    'expired',
    'notYetValid',
    'wrongAudience',
    'wrongIssuer',
    'unknownKey',
    'tamperedSignature',
    'algNone',
  ] as const)('GET /orders with a %s token returns 401 invalid_token', async (kind) => {
    const token = await issuer.tokens[kind]({ scope: 'read:orders' });
    const res = await request(app).get('/orders').auth(token, { type: 'bearer' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });
});

describe('4. Fastify and inject', async () => {
  const app = Fastify();
  await app.register(gatehouse, issuer.verifierOptions());
  app.get('/orders', { onRequest: [app.requireAuth, app.requireScope('read:orders')] }, async () => []);
  afterAll(() => app.close());

  it('GET /orders without read:orders returns 403', async () => {
    const token = await issuer.sign({ scope: 'write:orders' });
    const res = await app.inject({ url: '/orders', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'insufficient_scope' });
  });
});

describe('5. Signing tokens', () => {
  const real = issuer;
  it('signs what the page says', async () => {
    const verifier = createVerifier({ ...real.verifierOptions(), fetch: real.fetch, cache: false });
    const claims = async (token: Promise<string>) => (await verifier.verify(await token)).claims;
    const decode = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    const signed: Promise<string>[] = [];
    const issuer = {
      sign: (...args: Parameters<typeof real.sign>) => {
        const token = real.sign(...args);
        signed.push(token);
        return token;
      },
    };
    await issuer.sign(); // the defaults
    await issuer.sign({ scope: 'read:orders write:orders' }); // scopes
    await issuer.sign({ sub: 'alice', tenant: 'acme' }); // any claim, custom ones too
    await issuer.sign({ aud: ['https://api.gatehouse.test', 'https://billing.test'] });
    await issuer.sign({ client_id: undefined }); // undefined removes a claim
    await issuer.sign({ exp: '2030' }); // any value, even an invalid one
    const tokens = await Promise.all(signed);
    expect(await claims(Promise.resolve(tokens[0]!))).toMatchObject({
      sub: 'user-1',
      client_id: 'test-client',
    });
    expect((await claims(Promise.resolve(tokens[1]!))).scope).toBe('read:orders write:orders');
    expect(await claims(Promise.resolve(tokens[2]!))).toMatchObject({ sub: 'alice', tenant: 'acme' });
    expect(decode(tokens[3]!).aud).toEqual(['https://api.gatehouse.test', 'https://billing.test']);
    expect(decode(tokens[4]!)).not.toHaveProperty('client_id');
    await expect(verifier.verify(tokens[5]!)).rejects.toMatchObject({ status: 401 });
  });
});

describe('7. Key rotation', () => {
  it('rotates, drops and changes algorithms', async () => {
    const issuer = await createTestIssuer();
    const first = issuer.kid;
    await issuer.rotateKeys(); // a new key signs from now on; the previous one stays published
    expect(issuer.jwks().keys.map((key) => key.kid)).toEqual([issuer.kid, first]);
    await issuer.rotateKeys({ dropPrevious: true }); // emergency rotation: only the new key is published
    expect(issuer.jwks().keys).toHaveLength(1);
    await issuer.rotateKeys({ kid: 'key-2', alg: 'EdDSA' });
    expect([issuer.kid, issuer.alg]).toEqual(['key-2', 'EdDSA']);
  });
});

describe('8. The 503 path', () => {
  it('GET /orders answers 503 when the JWKS is down', async () => {
    server.use(issuer.outage.serverError());
    const app = createApp({ issuer: issuer.issuer, audience: issuer.audience }); // a fresh app: no cached keys
    const res = await request(app)
      .get('/orders')
      .auth(await issuer.sign(), { type: 'bearer' });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.body.error).toBe('temporarily_unavailable');
  });
});

describe('9. Without msw: issuer.fetch', () => {
  it('verifies with the in-memory fetch, in core and in an adapter', async () => {
    const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch });
    const auth = await verifier.verify(await issuer.sign({ scope: 'read:orders' }));
    expect(auth.scopes).toEqual(['read:orders']);

    const app = express();
    const handler: express.RequestHandler = (req, res) => {
      res.json({ sub: req.auth?.subject });
    };
    // The adapters take the same options:
    app.get('/orders', requireAuth({ ...issuer.verifierOptions(), fetch: issuer.fetch }), handler);
    await request(app)
      .get('/orders')
      .auth(await issuer.sign(), { type: 'bearer' })
      .expect(200, { sub: 'user-1' });
  });
});

describe('10. Another process: issuer.listen()', () => {
  it('serves discovery and the JWKS to an API in another process (examples/express-api)', async () => {
    const cwd = join(import.meta.dirname, '../../../express-api');
    const issuer = await createTestIssuer();
    const server = await issuer.listen(); // server.url: http://127.0.0.1:PORT
    const port = await freePort(); // any free port
    const api = spawn(process.execPath, ['src/server.ts'], {
      cwd,
      env: { ...process.env, PORT: String(port), ISSUER: server.issuer, AUDIENCE: String(issuer.audience) },
    });
    // … wait for the API, then call it with await issuer.sign({ scope: 'read:orders' })
    try {
      await new Promise<void>((resolve, reject) => {
        api.stdout!.on('data', (chunk) => String(chunk).includes('listening') && resolve());
        api.once('exit', (code) => reject(new Error(`the API exited with ${code}`)));
      });
      const res = await fetch(`http://127.0.0.1:${port}/orders`, {
        headers: { authorization: `Bearer ${await issuer.sign({ scope: 'read:orders' })}` },
      });
      expect([res.status, await res.json()]).toEqual([200, { orders: [] }]);
    } finally {
      api.kill();
      await server.close();
    }
  });
});

describe('11. Node’s test runner', () => {
  it('runs orders.node-test.mjs with node --test', async () => {
    const file = join(import.meta.dirname, 'orders.node-test.mjs');
    const child = spawn(process.execPath, ['--test', '--test-reporter=tap', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(output).toContain('# pass 1');
    expect(code).toBe(0);
  });
});

// 12. Recipe: impersonation tokens, at the top level as on the page.
const app = express();
const opts = { issuer: issuer.issuer, audience: issuer.audience };
const handler: express.RequestHandler = (_req, res) => {
  res.status(201).end();
};
app.get('/me', requireAuth(opts), (req, res) => {
  res.json({ subject: req.auth?.subject, actor: req.auth?.actor, delegated: req.auth?.delegated });
});
app.post('/refunds', requireAuth(opts), requireScope('refunds:create', { allowDelegation: false }), handler);

it('mints an impersonation token', async () => {
  const token = await issuer.impersonation('support-agent-7', { sub: 'customer-42', scope: 'read:orders' });
  // claims: { sub: 'customer-42', act: { sub: 'support-agent-7' }, scope: 'read:orders', … }
  const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch });
  expect((await verifier.verify(token)).claims).toMatchObject({
    sub: 'customer-42',
    act: { sub: 'support-agent-7' },
    scope: 'read:orders',
  });
});

it('an agent acting for a customer is seen as the customer', async () => {
  const token = await issuer.impersonation('support-agent-7', { sub: 'customer-42', scope: 'read:orders' });
  const res = await request(app).get('/me').auth(token, { type: 'bearer' });
  expect(res.body).toMatchObject({
    subject: 'customer-42',
    actor: { sub: 'support-agent-7' },
    delegated: true,
  });
});

it('refunds refuse impersonation tokens with 403', async () => {
  // app.post('/refunds', requireAuth(opts), requireScope('refunds:create', { allowDelegation: false }), handler)
  const token = await issuer.impersonation('support-agent-7', {
    sub: 'customer-42',
    scope: 'refunds:create',
  });
  const res = await request(app).post('/refunds').auth(token, { type: 'bearer' });
  expect(res.status).toBe(403);
  expect(res.body.error).toBe('access_denied');
});

describe('13. Fake clocks', () => {
  it('tokens and core follow a fake Date', async () => {
    const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch, cache: false });
    vi.useFakeTimers({ toFake: ['Date'] });
    const token = await issuer.sign({}, { expiresIn: 60 });
    vi.setSystemTime(Date.now() + 61_000 + 5_000); // past exp and core's 5 s default clock tolerance
    await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'expired' });
    vi.useRealTimers();
  });
});
