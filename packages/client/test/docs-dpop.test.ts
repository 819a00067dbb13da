/**
 * The DPoP samples of docs/client.md ("Sender-constrained tokens: DPoP"), run as they are written:
 * a real issuer, a real API protected by `@gatehouse/core` requiring DPoP, and the client.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerifier, isAuthError } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/index.js';
import { FormAgent } from './helpers/form-sign-in.js';
import { mintSubjectToken, ORDERS, PASSWORD, REDIRECT, startWorld, type World } from './helpers/world.js';

let world: World;
let api: string;
let close: () => void;

beforeAll(async () => {
  world = await startWorld();
  const issuerUrl = world.baseUrl;
  // The API: DPoP required, so a token without its key is worth nothing.
  const verifier = createVerifier({
    issuer: `${issuerUrl}/oidc`,
    audience: ORDERS,
    allowInsecureHttp: true, // loopback issuer in this test
    dpop: { mode: 'required' },
  });
  const server = createServer((req, res) => {
    const url = `http://${req.headers.host}${req.url}`;
    verifier.authenticate({ headers: req.headers, method: req.method, url }).then(
      (auth) => res.writeHead(200).end(JSON.stringify({ sub: auth.subject, act: auth.actor?.sub ?? null })),
      (err: unknown) => {
        if (!isAuthError(err)) throw err;
        res.writeHead(err.status, err.headers).end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(async () => {
  close?.();
  await world?.close();
});

describe('docs/client.md: DPoP', () => {
  it('signs in with dpop: true, calls the API with client.fetch, and impersonates with a bound token', async () => {
    const issuerUrl = world.baseUrl;
    const client = createClient({
      endpoint: issuerUrl,
      allowInsecureRequests: true, // plain HTTP, loopback only
      clientId: 'console',
      redirectUri: REDIRECT,
      resources: [ORDERS],
      scopes: ['read:orders'],
      dpop: true, // a non-extractable ES256 key pair; every token is bound to it
    });
    const url = await client.signIn();
    await client.handleSignInCallback(await new FormAgent().signIn(url, REDIRECT, 'alice', PASSWORD));

    const res = await client.fetch(ORDERS, `${api}/orders`);
    // Authorization: DPoP <token>, DPoP: <proof of this request>
    expect(res.status).toBe(200);

    // A copy of the token is useless: without the key there is no proof.
    const token = await client.getAccessToken(ORDERS);
    const stolen = await fetch(`${api}/orders`, { headers: { authorization: `DPoP ${token}` } });
    expect(stolen.status).toBe(401);

    const subjectToken = await mintSubjectToken(world, { userId: world.users.agent });
    const impersonation = await client.exchangeSubjectToken({ subjectToken, resource: ORDERS });
    // impersonation.tokenType === 'dpop': bound to the same key
    const asCustomer = await client.fetch({ accessToken: impersonation.accessToken }, `${api}/orders`);
    expect(impersonation.tokenType).toBe('dpop');
    expect(((await asCustomer.json()) as { sub: string }).sub).toBe(world.users.agent);
  });
});
